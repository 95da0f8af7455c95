import Foundation
public import Shoal

/// A model of the notification contract for property-based tests: the
/// state of every ``Dog`` and ``Person`` read through the public API, which
/// objects a commit changed under a key-path filter (REALM-SEMANTICS §3.2),
/// and a check that a delivered changeset turns the previous delivered
/// array into the new one (§1.2).
public struct OracleState: Sendable, Equatable {
    /// A dog's own columns.
    public struct DogRow: Sendable, Equatable {
        public var name: String, age: Int, breed: String, tags: [String], owner: Int?
        public init(name: String, age: Int, breed: String, tags: [String], owner: Int?) {
            (self.name, self.age, self.breed, self.tags, self.owner) = (name, age, breed, tags, owner)
        }
    }

    /// A person's own columns.
    public struct PersonRow: Sendable, Equatable {
        public var name: String, city: String, dogs: [Int]
        public init(name: String, city: String, dogs: [Int]) {
            (self.name, self.city, self.dogs) = (name, city, dogs)
        }
    }

    public var dogs: [Int: DogRow] = [:]
    public var people: [Int: PersonRow] = [:]
    /// Dog id → the people whose `dogs` list holds it (`Dog.owners`).
    public var owners: [Int: Set<Int>] = [:]
    /// Person id → the dogs whose `owner` it is (`Person.ownedDogs`).
    public var owned: [Int: Set<Int>] = [:]

    public init() {}

    /// Reads every dog and person of `realm` at its current version.
    public static func capture(_ realm: Realm) -> OracleState {
        var state = OracleState()
        for dog in realm.objects(Dog.self) {
            state.dogs[dog.id] = DogRow(name: dog.name, age: dog.age, breed: dog.breed, tags: dog.tags.sorted(), owner: dog.owner?.id)
        }
        for person in realm.objects(Person.self) {
            state.people[person.id] = PersonRow(name: person.name, city: person.city, dogs: person.dogs.map(\.id))
        }
        state.rederive()
        return state
    }

    /// The ids of the objects of a kind.
    public func ids(_ kind: OracleKind) -> Set<Int> { Set(kind == .dog ? Array(dogs.keys) : Array(people.keys)) }

    func exists(_ ref: OracleRef) -> Bool { ref.kind == .dog ? dogs[ref.id] != nil : people[ref.id] != nil }

    /// Whether an object's own columns (list membership included) differ between two states.
    func ownDiffers(_ ref: OracleRef, from other: OracleState) -> Bool {
        ref.kind == .dog ? dogs[ref.id] != other.dogs[ref.id] : people[ref.id] != other.people[ref.id]
    }

    /// Objects reached by one forward link (`owner`, `dogs`).
    func forward(_ ref: OracleRef) -> [OracleRef] {
        switch ref.kind {
        case .dog: dogs[ref.id]?.owner.map { [OracleRef(.person, $0)] } ?? []
        case .person: (people[ref.id]?.dogs ?? []).map { OracleRef(.dog, $0) }
        }
    }

    /// Objects linking to `ref` by one forward link.
    func backward(_ ref: OracleRef) -> [OracleRef] {
        switch ref.kind {
        case .dog: (owners[ref.id] ?? []).map { OracleRef(.person, $0) }
        case .person: (owned[ref.id] ?? []).map { OracleRef(.dog, $0) }
        }
    }

    /// The value of one column, as a comparable cell; links as ids, backlinks as sorted ids.
    func cell(_ ref: OracleRef, _ column: String) -> [String] {
        switch (ref.kind, column) {
        case (.dog, "name"): dogs[ref.id].map { [$0.name] } ?? []
        case (.dog, "age"): dogs[ref.id].map { ["\($0.age)"] } ?? []
        case (.dog, "breed"): dogs[ref.id].map { [$0.breed] } ?? []
        case (.dog, "tags"): dogs[ref.id]?.tags ?? []
        case (.dog, "owner"): dogs[ref.id]?.owner.map { ["\($0)"] } ?? []
        case (.dog, "owners"): (owners[ref.id] ?? []).sorted().map(String.init)
        case (.person, "name"): people[ref.id].map { [$0.name] } ?? []
        case (.person, "city"): people[ref.id].map { [$0.city] } ?? []
        case (.person, "dogs"): (people[ref.id]?.dogs ?? []).map(String.init)
        case (.person, "ownedDogs"): (owned[ref.id] ?? []).sorted().map(String.init)
        default: preconditionFailure("the oracle does not model \(ref.kind).\(column)")
        }
    }
}

/// The two classes the oracle models.
public enum OracleKind: String, Sendable { case dog = "Dog", person = "Person" }

/// One object of the oracle's model.
public struct OracleRef: Hashable, Sendable {
    public let kind: OracleKind
    public let id: Int
    public init(_ kind: OracleKind, _ id: Int) {
        self.kind = kind
        self.id = id
    }
}

/// Which objects a change touched, under the rules of REALM-SEMANTICS §3.2.
public enum OracleChanges {
    /// How a key-path component of a class is stored.
    enum Step { case column, forward(OracleKind), backward(OracleKind, originColumn: String) }

    static func step(_ kind: OracleKind, _ component: String) -> Step {
        switch (kind, component) {
        case (.dog, "owner"): .forward(.person)
        case (.dog, "owners"): .backward(.person, originColumn: "dogs")
        case (.person, "dogs"): .forward(.dog)
        case (.person, "ownedDogs"): .backward(.dog, originColumn: "owner")
        default: .column
        }
    }

    /// The objects of `kind` present in both states that count as modified
    /// by the change from `before` to `after` under `keyPaths` (`nil` or
    /// empty: unfiltered, `depth` forward hops). `generous` gives the upper
    /// bound of what an implementation may report (any change to a
    /// backlink set or to an origin's link column counts, and unfiltered
    /// reachability is taken in both states); otherwise the lower bound it
    /// must report.
    public static func modified(_ kind: OracleKind, keyPaths: [String]?, before: OracleState, after: OracleState, depth: Int, generous: Bool) -> Set<Int> {
        let candidates = before.ids(kind).intersection(after.ids(kind))
        guard let keyPaths, !keyPaths.isEmpty else {
            var reached = deep(kind, before: before, after: after, in: after, depth: depth)
            if generous { reached.formUnion(deep(kind, before: before, after: after, in: before, depth: depth)) }
            return reached.intersection(candidates)
        }
        let paths = keyPaths.map { $0.split(separator: ".").map(String.init)[...] }
        return candidates.filter { id in
            paths.contains { pathChanged(OracleRef(kind, id), $0, before, after, generous) }
        }
    }

    /// Objects of `kind` whose membership in a sorted or filtered result
    /// may change: anything within 3 forward hops or one backward hop changed,
    /// or its backlinks changed. Only these may appear moved.
    public static func touched(_ kind: OracleKind, before: OracleState, after: OracleState) -> Set<Int> {
        var result = deep(kind, before: before, after: after, in: after, depth: 3)
        result.formUnion(deep(kind, before: before, after: after, in: before, depth: 3))
        for id in before.ids(kind).intersection(after.ids(kind)) {
            let ref = OracleRef(kind, id)
            let column = kind == .dog ? "owners" : "ownedDogs"
            if before.cell(ref, column) != after.cell(ref, column) { result.insert(id) }
            let near = Set(before.backward(ref) + after.backward(ref))
            if near.contains(where: { after.ownDiffers($0, from: before) }) { result.insert(id) }
        }
        return result
    }

    /// The ids of `kind` that reach, within `depth` forward hops in `state`,
    /// an object whose own columns differ between the two states.
    static func deep(_ kind: OracleKind, before: OracleState, after: OracleState, in state: OracleState, depth: Int) -> Set<Int> {
        var changed: Set<OracleRef> = []
        for id in Set(before.dogs.keys).union(after.dogs.keys) where after.ownDiffers(OracleRef(.dog, id), from: before) {
            changed.insert(OracleRef(.dog, id))
        }
        for id in Set(before.people.keys).union(after.people.keys) where after.ownDiffers(OracleRef(.person, id), from: before) {
            changed.insert(OracleRef(.person, id))
        }
        var reached = changed.filter { state.exists($0) }
        var frontier = reached
        for _ in 0..<max(depth, 0) {
            var next: Set<OracleRef> = []
            for ref in frontier { for origin in state.backward(ref) where !reached.contains(origin) { next.insert(origin) } }
            reached.formUnion(next)
            frontier = next
        }
        return Set(reached.filter { $0.kind == kind }.map(\.id))
    }

    static func pathChanged(_ ref: OracleRef, _ path: ArraySlice<String>, _ before: OracleState, _ after: OracleState, _ generous: Bool) -> Bool {
        guard let component = path.first else { return false }
        let rest = path.dropFirst()
        switch step(ref.kind, component) {
        case .column:
            return before.cell(ref, component) != after.cell(ref, component)
        case .forward:
            if before.cell(ref, component) != after.cell(ref, component) { return true }
            guard !rest.isEmpty else { return false }
            return after.forward(ref).contains { !before.exists($0) || pathChanged($0, rest, before, after, generous) }
        case .backward(_, let originColumn):
            let was = Set(before.backward(ref)), now = Set(after.backward(ref))
            if !now.subtracting(was).isEmpty { return true }
            if generous {
                if was != now { return true }
                if now.contains(where: { before.cell($0, originColumn) != after.cell($0, originColumn) }) { return true }
            }
            guard !rest.isEmpty else { return false }
            return now.contains { !before.exists($0) || pathChanged($0, rest, before, after, generous) }
        }
    }
}

/// Checks one delivered `.update` against the oracle.
public enum OracleCheck {
    /// The problems with a changeset that should turn `old` into `new`:
    /// indices sorted, unique and in range; deletions (old indices,
    /// descending) then insertions (new indices) rebuild `new` from `old`;
    /// modifications are old indices of kept elements, include every kept
    /// element of `mustModify` and lie within `mayModify`; an element both
    /// deleted and inserted (moved) is in `mayMove`; the change is not empty.
    public static func problems(old: [Int], new: [Int], deletions: [Int], insertions: [Int], modifications: [Int],
                                mustModify: Set<Int>, mayModify: Set<Int>, mayMove: Set<Int>) -> [String] {
        var problems: [String] = []
        func ascending(_ name: String, _ indices: [Int], below bound: Int) {
            if indices != indices.sorted() || Set(indices).count != indices.count { problems.append("\(name) \(indices) not ascending and unique") }
            if let bad = indices.first(where: { $0 < 0 || $0 >= bound }) { problems.append("\(name) index \(bad) out of range 0..<\(bound)") }
        }
        ascending("deletions", deletions, below: old.count)
        ascending("insertions", insertions, below: new.count)
        ascending("modifications", modifications, below: old.count)
        guard problems.isEmpty else { return problems }
        if deletions.isEmpty && insertions.isEmpty && modifications.isEmpty { problems.append("an empty update was delivered") }
        var rebuilt = old
        for index in deletions.reversed() { rebuilt.remove(at: index) }
        for index in insertions where index <= rebuilt.count { rebuilt.insert(new[index], at: index) }
        if rebuilt != new { problems.append("applying the changeset to \(old) gives \(rebuilt), expected \(new)") }
        let deleted = Set(deletions)
        if let both = modifications.first(where: { deleted.contains($0) }) { problems.append("old index \(both) is both deleted and modified") }
        let keptIds = Set(old.indices.filter { !deleted.contains($0) }.map { old[$0] })
        let modifiedIds = Set(modifications.map { old[$0] })
        let missing = mustModify.intersection(keptIds).subtracting(modifiedIds)
        if !missing.isEmpty { problems.append("objects \(missing.sorted()) changed but were not reported modified") }
        let extra = modifiedIds.subtracting(mayModify).subtracting(mustModify)
        if !extra.isEmpty { problems.append("objects \(extra.sorted()) reported modified but nothing they observe changed") }
        let moved = Set(deletions.map { old[$0] }).intersection(new)
        let badMoves = moved.subtracting(mayMove)
        if !badMoves.isEmpty { problems.append("untouched objects \(badMoves.sorted()) reported as moved (deleted and inserted)") }
        return problems
    }

    /// Whether a callback must fire for a change from `old` to `new`.
    public static func required(old: [Int], new: [Int], mustModify: Set<Int>) -> Bool {
        old != new || !mustModify.intersection(old).intersection(new).isEmpty
    }
}
