import Foundation
import OpenCombine
import Shoal
import ShoalCombine
import ShoalTestSupport
import Testing

/// `valuePublisher(_:keyPaths:)` and `changesetPublisher(_:keyPaths:)` for
/// objects and collections, and completion when the object is deleted.
@Suite struct ObjectPublisherTests {
    @Test("valuePublisher emits the object after each change and finishes when it is deleted")
    func objectValues() throws {
        let realm = try Fixture.dogs(1...2)
        var seen: [String] = []
        let probe = Probe<Dog, any Error> { seen.append("\($0.name) \($0.age)") }
        valuePublisher(Fixture.dog(realm, 1)).subscribe(probe)
        realm.refresh()
        #expect(probe.values.isEmpty)   // objects have no initial value
        try realm.write { Fixture.dog(realm, 1).name = "first" }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).name = "another dog" }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 9 }
        realm.refresh()
        #expect(seen == ["first 1", "first 9"])
        try realm.write { realm.delete(Fixture.dog(realm, 1)) }
        realm.refresh()
        #expect(probe.isFinished)
        #expect(seen.count == 2)
    }

    @Test("valuePublisher with key paths emits only for those properties")
    func objectKeyPaths() throws {
        let realm = try Fixture.dogs(1...1)
        let probe = Probe<Dog, any Error>()
        valuePublisher(Fixture.dog(realm, 1), keyPaths: ["age"]).subscribe(probe)
        try realm.write { Fixture.dog(realm, 1).name = "ignored" }
        realm.refresh()
        #expect(probe.values.isEmpty)
        try realm.write { Fixture.dog(realm, 1).age = 7 }
        realm.refresh()
        #expect(probe.take().map(\.age) == [7])
    }

    @Test("changesetPublisher(object) emits the changed properties with old and new values, then finishes on deletion")
    func objectChangesets() throws {
        let realm = try Fixture.dogs(1...1)
        let probe = Probe<ObjectChange<Dog>, Never>()
        changesetPublisher(Fixture.dog(realm, 1), keyPaths: ["name", "age"]).subscribe(probe)
        try realm.write {
            Fixture.dog(realm, 1).name = "renamed"
            Fixture.dog(realm, 1).breed = "not observed"
        }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 5 }
        realm.refresh()
        let described = probe.take().map { change -> [String] in
            guard case .change(let dog, let properties) = change else { return ["\(change)"] }
            return properties.map { "\($0.name): \($0.oldValue ?? "nil") -> \($0.newValue ?? "nil") (\(dog.name))" }
        }
        #expect(described == [["name: d1 -> renamed (renamed)"], ["age: 1 -> 5 (renamed)"]])
        try realm.write { realm.delete(Fixture.dog(realm, 1)) }
        realm.refresh()
        #expect(probe.isFinished)
        #expect(probe.values.isEmpty)
    }

    @Test("an invalid key path is the object changeset publisher's only value")
    func objectInvalidKeyPath() throws {
        let realm = try Fixture.dogs(1...1)
        let probe = Probe<ObjectChange<Dog>, Never>()
        changesetPublisher(Fixture.dog(realm, 1), keyPaths: ["missing"]).subscribe(probe)
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).name = "x" }
        realm.refresh()
        let values = probe.values
        #expect(values.count == 1)
        if case .error(let error) = values.first {
            #expect("\(error)".contains("'missing' not found in object of type 'Dog'"))
        } else {
            Issue.record("expected .error, got \(values)")
        }
    }

    @Test("the free functions work on collections as their members do")
    func freeFunctionsOnCollections() throws {
        let realm = try Fixture.dogs(1...2)
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "id")
        var values: [[Int]] = [], events: [Event] = []
        let cancellables = [
            valuePublisher(dogs, keyPaths: ["name"]).sink(receiveCompletion: { _ in }, receiveValue: { values.append($0.map(\.id)) }),
            changesetPublisher(dogs, keyPaths: ["name"]).sink { events.append(Event($0)) },
        ]
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).age = 30 }   // filtered out
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).name = "two" }
        realm.refresh()
        #expect(values == [[1, 2], [1, 2]])
        #expect(events == [.initial([1, 2]), .update([1, 2], deletions: [], insertions: [], modifications: [1])])
        cancellables.forEach { $0.cancel() }
    }

    @Test("deleting a List's owner publishes an update deleting every element, as observe does")
    func listOwnerDeleted() throws {
        let realm = try Fixture.dogs(1...2)
        let person = try realm.write {
            realm.create(Person.self, value: ["id": 1, "dogs": [Fixture.dog(realm, 1), Fixture.dog(realm, 2)]])
        }
        let probe = Probe<RealmCollectionChange<List<Dog>>, Never>()
        person.dogs.changesetPublisher.subscribe(probe)
        realm.refresh()
        try realm.write { realm.delete(person) }
        realm.refresh()
        let deletions = probe.values.compactMap { change -> [Int]? in
            if case .update(_, let deletions, _, _) = change { return deletions }
            return nil
        }
        #expect(deletions == [[0, 1]])
    }
}
