import Foundation
import OpenCombine
import Shoal
import ShoalCombine
import ShoalTestSupport
import Testing

/// `collectionPublisher` and `changesetPublisher` on every collection kind:
/// what each commit publishes, and key-path filtering.
@Suite struct CollectionPublisherTests {
    @Test("collectionPublisher emits the results at first and after each commit that changes them")
    func resultsValues() throws {
        let realm = try Fixture.dogs(1...3)
        var seen: [[Int]] = []
        let cancellable = realm.objects(Dog.self).where { $0.age > 1 }.collectionPublisher
            .sink(receiveCompletion: { _ in }, receiveValue: { seen.append($0.map(\.id)) })
        #expect(seen.isEmpty)   // never from the subscription itself
        realm.refresh()
        #expect(seen == [[2, 3]])
        try realm.write { realm.create(Dog.self, value: ["id": 4, "age": 4]) }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 2).age = 0 }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).name = "outside the query" }
        realm.refresh()
        #expect(seen == [[2, 3], [2, 3, 4], [3, 4]])
        cancellable.cancel()
    }

    @Test("changesetPublisher emits Realm's index changes for each commit")
    func resultsChangesets() throws {
        let realm = try Fixture.dogs(1...3)
        var events: [Event] = []
        let cancellable = realm.objects(Dog.self).sorted(byKeyPath: "id").changesetPublisher
            .sink { events.append(Event($0)) }
        realm.refresh()
        try realm.write {
            realm.delete(Fixture.dog(realm, 1))
            realm.create(Dog.self, value: ["id": 5])
            Fixture.dog(realm, 3).name = "renamed"
        }
        realm.refresh()
        #expect(events == [.initial([1, 2, 3]), .update([2, 3, 5], deletions: [0], insertions: [2], modifications: [2])])
        cancellable.cancel()
    }

    @Test("List, MutableSet, LinkingObjects and AnyRealmCollection publish their changes")
    func otherCollections() throws {
        let realm = try Fixture.dogs(1...3)
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "name": "p"]) }
        var list: [Event] = [], owned: [Event] = [], erased: [Event] = [], tags: [[String]] = []
        let cancellables = [
            person.dogs.changesetPublisher.sink { list.append(Event($0)) },
            person.ownedDogs.changesetPublisher.sink { owned.append(Event($0)) },
            AnyRealmCollection(person.dogs).changesetPublisher.sink { erased.append(Event($0)) },
            Fixture.dog(realm, 1).tags.collectionPublisher
                .sink(receiveCompletion: { _ in }, receiveValue: { tags.append($0.sorted()) }),
        ]
        realm.refresh()
        try realm.write {
            person.dogs.append(Fixture.dog(realm, 2))
            Fixture.dog(realm, 3).owner = person
            Fixture.dog(realm, 1).tags.insert("good")
        }
        realm.refresh()
        #expect(list == [.initial([]), .update([2], deletions: [], insertions: [0], modifications: [])])
        #expect(erased == list)
        #expect(owned == [.initial([]), .update([3], deletions: [], insertions: [0], modifications: [])])
        #expect(tags == [[], ["good"]])
        cancellables.forEach { $0.cancel() }
    }

    @Test("a Map publishes its value and its key changes")
    func map() throws {
        let realm = try Fixture.dogs(1...1)
        let scores = Fixture.dog(realm, 1).scores
        var values: [[String: Double]] = []
        var changes: [String] = []
        let cancellables = [
            scores.collectionPublisher.sink(receiveCompletion: { _ in }, receiveValue: { map in
                values.append(Dictionary(uniqueKeysWithValues: map.asKeyValueSequence().map { ($0.key, $0.value) }))
            }),
            scores.changesetPublisher.sink { change in
                switch change {
                case .initial(let map): changes.append("initial \(map.count)")
                case .update(_, let d, let i, let m): changes.append("update \(d) \(i) \(m)")
                case .error(let error): changes.append("error \(error)")
                }
            },
        ]
        realm.refresh()
        try realm.write { scores["a"] = 1 }
        realm.refresh()
        try realm.write {
            scores["a"] = 2
            scores["b"] = 3
        }
        realm.refresh()
        #expect(values == [[:], ["a": 1], ["a": 2, "b": 3]])
        #expect(changes == ["initial 0", "update [] [\"a\"] []", "update [] [\"b\"] [\"a\"]"])
        cancellables.forEach { $0.cancel() }
    }

    @Test("key paths filter modifications exactly as observe(keyPaths:) does; insertions always count")
    func keyPathFiltering() throws {
        let realm = try Fixture.dogs(1...2)
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "id")
        var filtered: [Event] = [], valueCount = 0
        let cancellables = [
            dogs.changesetPublisher(keyPaths: ["name"]).sink { filtered.append(Event($0)) },
            dogs.collectionPublisher(keyPaths: ["name"]).sink(receiveCompletion: { _ in }, receiveValue: { _ in valueCount += 1 }),
        ]
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 40 }
        realm.refresh()
        #expect(filtered == [.initial([1, 2])])
        #expect(valueCount == 1)
        try realm.write { Fixture.dog(realm, 2).name = "renamed" }
        realm.refresh()
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        realm.refresh()
        #expect(filtered == [.initial([1, 2]), .update([1, 2], deletions: [], insertions: [], modifications: [1]),
            .update([1, 2, 3], deletions: [], insertions: [2], modifications: [])])
        #expect(valueCount == 3)
        cancellables.forEach { $0.cancel() }
    }

    @Test("an invalid key path fails the value publisher and is the changeset publisher's only value")
    func invalidKeyPath() throws {
        let realm = try Fixture.dogs(1...1)
        let values = Probe<Results<Dog>, any Error>()
        let changes = Probe<RealmCollectionChange<Results<Dog>>, Never>()
        realm.objects(Dog.self).collectionPublisher(keyPaths: ["nope"]).subscribe(values)
        realm.objects(Dog.self).changesetPublisher(keyPaths: ["nope"]).subscribe(changes)
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).name = "x" }
        realm.refresh()
        guard case .failure(let error) = values.completion else {
            Issue.record("expected a failure, got \(String(describing: values.completion))")
            return
        }
        #expect("\(error)".contains("'nope' not found in object of type 'Dog'"))
        #expect(values.values.isEmpty)
        #expect(changes.values.map(Event.init) == [.error("\(error)")])
    }
}
