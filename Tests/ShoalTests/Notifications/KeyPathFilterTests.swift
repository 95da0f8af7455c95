import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Key-path filters on collections (REALM-SEMANTICS §3.2, decisions table):
/// exclusive per token, `nil` and `[]` unfiltered, link and backlink paths,
/// and the depth of unfiltered observation.
@Suite struct KeyPathFilterTests {
    /// Ann (1, Oslo) owns dogs 1 and 2 and lists them in `dogs`; Bob (2,
    /// Rome) owns nothing; dog 3 has no owner. Dogs are aged 1, 2, 3.
    static func household() throws -> Realm {
        let realm = try Fixture.dogs(1...3)
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann", "city": "Oslo"])
            realm.create(Person.self, value: ["id": 2, "name": "Bob", "city": "Rome"])
            for id in [1, 2] {
                Fixture.dog(realm, id).owner = ann
                ann.dogs.append(Fixture.dog(realm, id))
            }
        }
        return realm
    }

    /// Observes `results` with each filter, delivers the initial callbacks,
    /// and returns the recorders (emptied) and tokens.
    static func observe<T: Object & IntIdentified>(_ results: Results<T>, _ filters: [[String]?]) -> ([Recorder], [NotificationToken]) {
        let recorders = filters.map { _ in Recorder() }
        let tokens = zip(filters, recorders).map { filter, recorder in results.observe(keyPaths: filter, recorder.handle) }
        results.realm?.refresh()
        for recorder in recorders { _ = recorder.take() }
        return (recorders, tokens)
    }

    static let unchanged123 = [1, 2, 3]

    @Test("filters are exclusive per token, even on one Results value: each token hears only its own key paths")
    func exclusivePerToken() throws {
        let realm = try Self.household()
        let dogs = realm.objects(Dog.self)
        let (recorders, tokens) = Self.observe(dogs, [["name"], ["age"], nil])
        let separate = Recorder()
        let separateToken = realm.objects(Dog.self).observe(keyPaths: ["name"], separate.handle)
        realm.refresh()
        _ = separate.take()
        try realm.write { Fixture.dog(realm, 1).age = 10 }
        realm.refresh()
        // Unfiltered, dog 2 reaches dog 1 through owner → dogs: both are modified.
        #expect(recorders[0].take() == [])
        #expect(recorders[1].take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [0])])
        #expect(recorders[2].take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [0, 1])])
        #expect(separate.take() == [])
        try realm.write { Fixture.dog(realm, 2).name = "renamed" }
        realm.refresh()
        #expect(recorders[0].take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [1])])
        #expect(recorders[1].take() == [])
        #expect(recorders[2].take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [0, 1])])
        #expect(separate.take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [1])])
        tokens.forEach { $0.invalidate() }
        separateToken.invalidate()
    }

    @Test("nil and [] both mean unfiltered: a linked owner's change reaches both")
    func nilAndEmptyAreUnfiltered() throws {
        let realm = try Self.household()
        let (recorders, tokens) = Self.observe(realm.objects(Dog.self), [nil, []])
        try realm.write { Fixture.person(realm, 1).city = "Bergen" }
        realm.refresh()
        for recorder in recorders {
            #expect(recorder.take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [0, 1])])
        }
        tokens.forEach { $0.invalidate() }
    }

    @Test("insertions and deletions always notify, whatever the filter")
    func membershipIgnoresFilter() throws {
        let realm = try Self.household()
        let (recorders, tokens) = Self.observe(realm.objects(Dog.self), [["breed"]])
        try realm.write { realm.create(Dog.self, value: ["id": 4, "name": "new"]) }
        realm.refresh()
        try realm.write { realm.delete(Fixture.dog(realm, 1)) }
        realm.refresh()
        #expect(recorders[0].take() == [
            .update([1, 2, 3, 4], deletions: [], insertions: [3], modifications: []),
            .update([2, 3, 4], deletions: [0], insertions: [], modifications: []),
        ])
        tokens.forEach { $0.invalidate() }
    }

    @Test("a link column alone notifies when the link is reassigned, not for a change inside the linked object")
    func linkColumnAlone() throws {
        let realm = try Self.household()
        let (recorders, tokens) = Self.observe(realm.objects(Dog.self), [["owner"]])
        try realm.write { Fixture.person(realm, 1).name = "Anna" }
        realm.refresh()
        #expect(recorders[0].take() == [])
        try realm.write { Fixture.dog(realm, 3).owner = Fixture.person(realm, 2) }
        realm.refresh()
        #expect(recorders[0].take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [2])])
        tokens.forEach { $0.invalidate() }
    }

    @Test("a link path notifies for its property on the current target and for a reassigned link, not other properties")
    func linkPath() throws {
        let realm = try Self.household()
        let (recorders, tokens) = Self.observe(realm.objects(Dog.self), [["owner.name"]])
        try realm.write { Fixture.person(realm, 1).city = "Bergen" }
        realm.refresh()
        #expect(recorders[0].take() == [])
        try realm.write { Fixture.person(realm, 1).name = "Anna" }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 3).owner = Fixture.person(realm, 2) }
        realm.refresh()
        try realm.write { Fixture.person(realm, 2).name = "Bobby" }
        realm.refresh()
        #expect(recorders[0].take() == [
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [0, 1]),
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [2]),
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [2]),
        ])
        tokens.forEach { $0.invalidate() }
    }

    @Test("typed key paths filter like their names")
    func typedKeyPaths() throws {
        let realm = try Self.household()
        let recorder = Recorder()
        let token = realm.objects(Dog.self).observe(keyPaths: [\Dog.name], recorder.handle)
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 9 }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 3).name = "typed" }
        realm.refresh()
        #expect(recorder.take() == [.initial([1, 2, 3]), .update([1, 2, 3], deletions: [], insertions: [], modifications: [2])])
        token.invalidate()
    }

    @Test("a backlink key path notifies when a new origin links, not when an origin's other property changes")
    func backlinkAlone() throws {
        let realm = try Self.household()
        let (recorders, tokens) = Self.observe(realm.objects(Dog.self), [["owners"]])
        try realm.write { Fixture.person(realm, 1).name = "Anna" }
        realm.refresh()
        #expect(recorders[0].take() == [])
        try realm.write { realm.create(Person.self, value: ["id": 3, "name": "Cleo", "dogs": [Fixture.dog(realm, 3)]]) }
        realm.refresh()
        try realm.write { Fixture.person(realm, 2).dogs.append(Fixture.dog(realm, 1)) }
        realm.refresh()
        #expect(recorders[0].take() == [
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [2]),
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [0]),
        ])
        tokens.forEach { $0.invalidate() }
    }

    @Test("a backlink then property path notifies when a current origin's property changes or a new origin links")
    func backlinkProperty() throws {
        let realm = try Self.household()
        let (recorders, tokens) = Self.observe(realm.objects(Dog.self), [["owners.name"]])
        try realm.write { Fixture.person(realm, 1).city = "Bergen" }
        realm.refresh()
        #expect(recorders[0].take() == [])
        try realm.write { Fixture.person(realm, 1).name = "Anna" }
        realm.refresh()
        try realm.write { realm.create(Person.self, value: ["id": 3, "name": "Cleo", "dogs": [Fixture.dog(realm, 3)]]) }
        realm.refresh()
        try realm.write { Fixture.person(realm, 2).name = "Bobby" }
        realm.refresh()
        #expect(recorders[0].take() == [
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [0, 1]),
            .update([1, 2, 3], deletions: [], insertions: [], modifications: [2]),
        ])
        tokens.forEach { $0.invalidate() }
    }

    @Test("unfiltered observation does not follow backlinks: a change to an object that only lists the element is silent")
    func unfilteredIgnoresBacklinks() throws {
        let realm = try Self.household()
        try realm.write { Fixture.person(realm, 2).dogs.append(Fixture.dog(realm, 3)) }
        let (recorders, tokens) = Self.observe(realm.objects(Dog.self), [nil])
        try realm.write { Fixture.person(realm, 2).name = "Bobby" }
        realm.refresh()
        #expect(recorders[0].take() == [])
        try realm.write { Fixture.person(realm, 1).name = "Anna" }
        realm.refresh()
        #expect(recorders[0].take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [0, 1])])
        tokens.forEach { $0.invalidate() }
    }

    @Test("a list column filter notifies on membership changes only; a list path on members' properties")
    func listColumnAndPath() throws {
        let realm = try Self.household()
        let people = realm.objects(Person.self)
        let (recorders, tokens) = Self.observe(people, [["dogs"], ["dogs.name"]])
        try realm.write { Fixture.dog(realm, 1).age = 11 }
        realm.refresh()
        #expect(recorders.map { $0.take() } == [[], []])
        try realm.write { Fixture.dog(realm, 1).name = "renamed" }
        realm.refresh()
        #expect(recorders.map { $0.take() } == [[], [.update([1, 2], deletions: [], insertions: [], modifications: [0])]])
        try realm.write { Fixture.person(realm, 2).dogs.append(Fixture.dog(realm, 3)) }
        realm.refresh()
        let appended = CollectionEvent.update([1, 2], deletions: [], insertions: [], modifications: [1])
        #expect(recorders.map { $0.take() } == [[appended], [appended]])
        try realm.write { Fixture.person(realm, 1).dogs.move(from: 0, to: 1) }
        realm.refresh()
        let moved = CollectionEvent.update([1, 2], deletions: [], insertions: [], modifications: [0])
        #expect(recorders.map { $0.take() } == [[moved], [moved]])
        tokens.forEach { $0.invalidate() }
    }

    /// Chains 0 → 1 → … → 19 through `next`, in a Realm with the given depth.
    static func chain(depth: Int? = nil) throws -> Realm {
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [Chain.self]
        if let depth { config.collectionNotificationDepth = depth }
        let realm = try Realm(configuration: config)
        try realm.write {
            for id in 0..<20 { realm.create(Chain.self, value: ["id": id, "label": "c\(id)"]) }
            let links = realm.objects(Chain.self).sorted(byKeyPath: "id")
            for id in 0..<19 { links[id].next = links[id + 1] }
        }
        return realm
    }

    @Test("link chains: unfiltered observation sees 3 hops (4 levels), a 4-hop key path exactly its source")
    func linkChainDepth() throws {
        let realm = try Self.chain()
        let chains = realm.objects(Chain.self).sorted(byKeyPath: "id")
        let (recorders, tokens) = Self.observe(chains, [nil, ["next.next.next.next.label"]])
        try realm.write { realm.object(ofType: Chain.self, forPrimaryKey: 19)?.label = "end" }
        realm.refresh()
        let ids = Array(0..<20)
        #expect(recorders[0].take() == [.update(ids, deletions: [], insertions: [], modifications: [16, 17, 18, 19])])
        #expect(recorders[1].take() == [.update(ids, deletions: [], insertions: [], modifications: [15])])
        tokens.forEach { $0.invalidate() }
    }

    @Test("the unfiltered depth is configurable", arguments: [0, 1, 5])
    func configurableDepth(depth: Int) throws {
        let realm = try Self.chain(depth: depth)
        #expect(realm.configuration.collectionNotificationDepth == depth)
        let chains = realm.objects(Chain.self).sorted(byKeyPath: "id")
        let (recorders, tokens) = Self.observe(chains, [nil])
        try realm.write { realm.object(ofType: Chain.self, forPrimaryKey: 19)?.weight = 1.5 }
        realm.refresh()
        #expect(recorders[0].take() == [.update(Array(0..<20), deletions: [], insertions: [], modifications: Array((19 - depth)...19))])
        tokens.forEach { $0.invalidate() }
    }

    @Test("the default depth is 3")
    func defaultDepth() throws {
        #expect(Realm.Configuration(inMemoryIdentifier: "depth").collectionNotificationDepth == 3)
    }

    @Test("unfiltered depth follows lists too: dog → owner → dogs → owner, and not one hop further")
    func depthThroughLists() throws {
        let realm = try makeRealm()
        try realm.write {
            // dog 1 → person 1 → dog 2 → person 2 → dog 3 → person 3
            for id in 1...3 { realm.create(Person.self, value: ["id": id, "name": "p\(id)"]) }
            for id in 1...3 { realm.create(Dog.self, value: ["id": id, "name": "d\(id)", "owner": Fixture.person(realm, id)]) }
            Fixture.person(realm, 1).dogs.append(Fixture.dog(realm, 2))
            Fixture.person(realm, 2).dogs.append(Fixture.dog(realm, 3))
        }
        let (recorders, tokens) = Self.observe(realm.objects(Dog.self), [nil])
        try realm.write { Fixture.person(realm, 2).city = "hop 3 from dog 1" }
        realm.refresh()
        #expect(recorders[0].take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [0, 1])])
        try realm.write { Fixture.dog(realm, 3).breed = "hop 4 from dog 1" }
        realm.refresh()
        #expect(recorders[0].take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [1, 2])])
        try realm.write { Fixture.person(realm, 3).city = "hop 5 from dog 1" }
        realm.refresh()
        #expect(recorders[0].take() == [.update([1, 2, 3], deletions: [], insertions: [], modifications: [1, 2])])
        tokens.forEach { $0.invalidate() }
    }
}
