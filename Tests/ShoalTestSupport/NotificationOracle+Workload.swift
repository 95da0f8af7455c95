import Foundation
public import Shoal

/// One random mutation of the oracle's model, by ids so that it can be
/// generated on one thread and applied on another. Applying skips what no
/// longer fits (a missing object, an index out of range, a duplicate list
/// member), so a transaction's operations may be generated independently.
public enum OracleOp: Sendable, CustomStringConvertible {
    case createDog(id: Int, name: String, age: Int, owner: Int?)
    case createPerson(id: Int, name: String, city: String, dogs: [Int])
    case setDogName(Int, String), setDogAge(Int, Int), setDogBreed(Int, String), setDogOwner(Int, Int?), addTag(Int, String)
    case setPersonName(Int, String), setPersonCity(Int, String)
    case deleteDog(Int), deletePerson(Int)
    case append(person: Int, dog: Int), insert(person: Int, dog: Int, at: Int), remove(person: Int, at: Int)
    case move(person: Int, from: Int, to: Int), removeAll(person: Int)

    public var description: String {
        switch self {
        case let .createDog(id, name, age, owner): "createDog(\(id), \(name), \(age), owner: \(owner.map(String.init) ?? "nil"))"
        case let .createPerson(id, name, city, dogs): "createPerson(\(id), \(name), \(city), dogs: \(dogs))"
        case let .setDogName(id, value): "dog \(id).name = \(value)"
        case let .setDogAge(id, value): "dog \(id).age = \(value)"
        case let .setDogBreed(id, value): "dog \(id).breed = \(value)"
        case let .setDogOwner(id, value): "dog \(id).owner = \(value.map(String.init) ?? "nil")"
        case let .addTag(id, value): "dog \(id).tags.insert(\(value))"
        case let .setPersonName(id, value): "person \(id).name = \(value)"
        case let .setPersonCity(id, value): "person \(id).city = \(value)"
        case let .deleteDog(id): "delete dog \(id)"
        case let .deletePerson(id): "delete person \(id)"
        case let .append(person, dog): "person \(person).dogs.append(\(dog))"
        case let .insert(person, dog, at): "person \(person).dogs.insert(\(dog), at: \(at))"
        case let .remove(person, at): "person \(person).dogs.remove(at: \(at))"
        case let .move(person, from, to): "person \(person).dogs.move(\(from) → \(to))"
        case let .removeAll(person): "person \(person).dogs.removeAll()"
        }
    }

    /// Applies the operation inside `realm`'s open write transaction.
    public func apply(_ realm: Realm) {
        func dog(_ id: Int) -> Dog? { realm.object(ofType: Dog.self, forPrimaryKey: id) }
        func person(_ id: Int) -> Person? { realm.object(ofType: Person.self, forPrimaryKey: id) }
        switch self {
        case let .createDog(id, name, age, owner):
            guard dog(id) == nil else { return }
            realm.create(Dog.self, value: ["id": id, "name": name, "age": age, "owner": owner.flatMap(person) as Any])
        case let .createPerson(id, name, city, dogs):
            guard person(id) == nil else { return }
            let members = Array(Set(dogs)).sorted().compactMap(dog)
            realm.create(Person.self, value: ["id": id, "name": name, "city": city, "dogs": members])
        case let .setDogName(id, value): dog(id)?.name = value
        case let .setDogAge(id, value): dog(id)?.age = value
        case let .setDogBreed(id, value): dog(id)?.breed = value
        case let .setDogOwner(id, value): dog(id)?.owner = value.flatMap(person)
        case let .addTag(id, value): dog(id)?.tags.insert(value)
        case let .setPersonName(id, value): person(id)?.name = value
        case let .setPersonCity(id, value): person(id)?.city = value
        case let .deleteDog(id): if let dog = dog(id) { realm.delete(dog) }
        case let .deletePerson(id): if let person = person(id) { realm.delete(person) }
        case let .append(p, d):
            if let list = person(p)?.dogs, let dog = dog(d), !list.contains(where: { $0.id == d }) { list.append(dog) }
        case let .insert(p, d, at):
            if let list = person(p)?.dogs, let dog = dog(d), at <= list.count, !list.contains(where: { $0.id == d }) { list.insert(dog, at: at) }
        case let .remove(p, at):
            if let list = person(p)?.dogs, at < list.count { list.remove(at: at) }
        case let .move(p, from, to):
            if let list = person(p)?.dogs, from < list.count, to < list.count { list.move(from: from, to: to) }
        case let .removeAll(p): person(p)?.dogs.removeAll()
        }
    }
}

extension OracleState {
    /// Applies an operation to the model, as ``OracleOp/apply(_:)`` applies
    /// it to a Realm: deleting a dog removes it from every list, deleting a
    /// person clears the owner of its dogs.
    public mutating func apply(_ op: OracleOp) {
        switch op {
        case let .createDog(id, name, age, owner):
            guard dogs[id] == nil else { return }
            dogs[id] = DogRow(name: name, age: age, breed: "", tags: [], owner: owner.flatMap { people[$0] == nil ? nil : $0 })
        case let .createPerson(id, name, city, members):
            guard people[id] == nil else { return }
            people[id] = PersonRow(name: name, city: city, dogs: Array(Set(members)).sorted().filter { dogs[$0] != nil })
        case let .setDogName(id, value): dogs[id]?.name = value
        case let .setDogAge(id, value): dogs[id]?.age = value
        case let .setDogBreed(id, value): dogs[id]?.breed = value
        case let .setDogOwner(id, value): dogs[id]?.owner = value.flatMap { people[$0] == nil ? nil : $0 }
        case let .addTag(id, value): if let tags = dogs[id]?.tags, !tags.contains(value) { dogs[id]?.tags = (tags + [value]).sorted() }
        case let .setPersonName(id, value): people[id]?.name = value
        case let .setPersonCity(id, value): people[id]?.city = value
        case let .deleteDog(id):
            guard dogs.removeValue(forKey: id) != nil else { return }
            for person in people.keys { people[person]?.dogs.removeAll { $0 == id } }
        case let .deletePerson(id):
            guard people.removeValue(forKey: id) != nil else { return }
            for dog in dogs.keys where dogs[dog]?.owner == id { dogs[dog]?.owner = nil }
        case let .append(p, d):
            if let list = people[p]?.dogs, dogs[d] != nil, !list.contains(d) { people[p]?.dogs.append(d) }
        case let .insert(p, d, at):
            if let list = people[p]?.dogs, dogs[d] != nil, at <= list.count, !list.contains(d) { people[p]?.dogs.insert(d, at: at) }
        case let .remove(p, at):
            if let list = people[p]?.dogs, at < list.count { people[p]?.dogs.remove(at: at) }
        case let .move(p, from, to):
            if var list = people[p]?.dogs, from < list.count, to < list.count {
                list.insert(list.remove(at: from), at: to)
                people[p]?.dogs = list
            }
        case let .removeAll(p): people[p]?.dogs.removeAll()
        }
        rederive()
    }

    /// Recomputes the backlink maps from the forward links.
    mutating func rederive() {
        owners = [:]
        owned = [:]
        for (id, dog) in dogs { if let owner = dog.owner { owned[owner, default: []].insert(id) } }
        for (id, person) in people { for dog in person.dogs { owners[dog, default: []].insert(id) } }
    }
}

/// A transaction of the oracle's workload.
public struct OracleTransaction: Sendable {
    public var ops: [OracleOp]
    /// Cancel instead of committing.
    public var cancel = false
    /// Read the Realm's state after the transaction (to check the model against it).
    public var capture = true

    public init(ops: [OracleOp], cancel: Bool = false) {
        self.ops = ops
        self.cancel = cancel
    }
}

/// Generates random transactions from the current model state.
public struct OracleWorkload {
    public static let names = ["Rex", "Fido", "Bella", "Max"]
    public static let cities = ["Oslo", "Rome", "Lima"]
    public var rng: SeededRandom
    var nextDog = 1
    var nextPerson = 1

    public init(seed: UInt64) { rng = SeededRandom(seed: seed) }

    public mutating func pick<T>(_ values: [T]) -> T { values[Int(rng.next() % UInt64(values.count))] }
    public mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
    public mutating func int(_ bound: Int) -> Int { Int(rng.next() % UInt64(max(bound, 1))) }

    /// The initial population: `dogs` dogs and `people` people, linked at random.
    public mutating func populate(dogs: Int, people: Int) -> OracleTransaction {
        var ops: [OracleOp] = []
        let personIds = (0..<people).map { _ in newPerson() }
        for id in personIds { ops.append(.createPerson(id: id, name: pick(Self.names), city: pick(Self.cities), dogs: [])) }
        for _ in 0..<dogs {
            let id = newDog()
            ops.append(.createDog(id: id, name: pick(Self.names), age: int(8), owner: chance(70) ? pick(personIds) : nil))
            if chance(60) { ops.append(.append(person: pick(personIds), dog: id)) }
        }
        return OracleTransaction(ops: ops)
    }

    mutating func newDog() -> Int { defer { nextDog += 1 }; return nextDog }
    mutating func newPerson() -> Int { defer { nextPerson += 1 }; return nextPerson }

    /// A random transaction over `state`: usually one to three operations;
    /// sometimes empty, same-value only, insert-then-delete, or cancelled.
    public mutating func transaction(_ state: OracleState) -> OracleTransaction {
        let dogIds = state.dogs.keys.sorted(), personIds = state.people.keys.sorted()
        switch int(100) {
        case 0..<4: return OracleTransaction(ops: [])
        case 4..<8:
            guard let id = dogIds.first, let dog = state.dogs[id] else { return OracleTransaction(ops: []) }
            return OracleTransaction(ops: [.setDogName(id, dog.name), .setDogAge(id, dog.age)])
        case 8..<12:
            let id = newDog()
            return OracleTransaction(ops: [.createDog(id: id, name: pick(Self.names), age: int(8), owner: personIds.isEmpty ? nil : pick(personIds)), .setDogAge(id, int(8)), .deleteDog(id)])
        case 12..<16: return OracleTransaction(ops: (0..<2).map { _ in op(dogIds, personIds, state) }, cancel: true)
        default: return OracleTransaction(ops: (0...int(3)).map { _ in op(dogIds, personIds, state) })
        }
    }

    mutating func op(_ dogIds: [Int], _ personIds: [Int], _ state: OracleState) -> OracleOp {
        if dogIds.count < 6 || personIds.isEmpty {
            return personIds.count < 2
                ? .createPerson(id: newPerson(), name: pick(Self.names), city: pick(Self.cities), dogs: dogIds.isEmpty ? [] : [pick(dogIds)])
                : .createDog(id: newDog(), name: pick(Self.names), age: int(8), owner: pick(personIds))
        }
        let dog = pick(dogIds), person = pick(personIds)
        let list = state.people[person]?.dogs ?? []
        switch int(100) {
        case 0..<10:
            if dogIds.count > 30 { return .deleteDog(dog) }
            return .createDog(id: newDog(), name: pick(Self.names), age: int(8), owner: chance(60) ? person : nil)
        case 10..<14:
            if personIds.count > 8 { return .deletePerson(person) }
            return .createPerson(id: newPerson(), name: pick(Self.names), city: pick(Self.cities), dogs: [dog, pick(dogIds)])
        case 14..<21: return .deleteDog(dog)
        case 21..<23: return personIds.count > 2 ? .deletePerson(person) : .setPersonCity(person, pick(Self.cities))
        case 23..<34: return .setDogName(dog, pick(Self.names))
        case 34..<48: return .setDogAge(dog, int(8))
        case 48..<52: return .setDogBreed(dog, pick(["collie", "pug"]))
        case 52..<62: return .setDogOwner(dog, chance(80) ? person : nil)
        case 62..<65: return .addTag(dog, pick(["good", "loud"]))
        case 65..<73: return .setPersonName(person, pick(Self.names))
        case 73..<79: return .setPersonCity(person, pick(Self.cities))
        case 79..<86: return .append(person: person, dog: dog)
        case 86..<89: return .insert(person: person, dog: dog, at: int(list.count + 1))
        case 89..<94: return .remove(person: person, at: int(list.count))
        case 94..<99: return .move(person: person, from: int(list.count), to: int(list.count))
        default: return .removeAll(person: person)
        }
    }
}

/// A thread that owns one Realm and runs the oracle's transactions on it,
/// one at a time, returning the state after each: writes never happen on
/// the observing thread, so commits pile up between its deliveries.
public final class OracleWriter: @unchecked Sendable {
    // Safe because: `pending`, `result` and `stopping` are only touched under `condition`.
    private let condition = NSCondition()
    private var pending: OracleTransaction?
    private var result: OracleState??
    private var stopping = false

    /// Starts the thread on the in-memory Realm named `name` (``makeRealm(_:types:)``).
    public init(realmName: String) {
        let thread = Thread { [self] in loop(realmName) }
        thread.start()
    }

    /// Runs a transaction and returns the state after it, if it asks for it.
    @discardableResult
    public func perform(_ transaction: OracleTransaction) -> OracleState? {
        condition.lock()
        defer { condition.unlock() }
        pending = transaction
        condition.broadcast()
        while result == nil { condition.wait() }
        defer { result = nil }
        return result!
    }

    /// Ends the thread.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func loop(_ realmName: String) {
        let realm = try! makeRealm(realmName)
        condition.lock()
        while true {
            while pending == nil && !stopping { condition.wait() }
            guard let transaction = pending else { break }
            pending = nil
            condition.unlock()
            realm.beginWrite()
            for op in transaction.ops { op.apply(realm) }
            if transaction.cancel { realm.cancelWrite() } else { try! realm.commitWrite() }
            let state = transaction.capture ? OracleState.capture(realm) : nil
            condition.lock()
            result = state
            condition.broadcast()
        }
        condition.unlock()
    }
}
