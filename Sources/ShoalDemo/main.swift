// A tour of Shoal: the example from the README, run end to end.
import Foundation
import Shoal

final class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var dogs: List<Dog>
}

final class Dog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""
    @Persisted(indexed: true) var age: Int
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Double>
    @Persisted var owner: Person?
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

var config = Realm.Configuration(inMemoryIdentifier: "demo")
config.objectTypes = [Person.self, Dog.self]
let realm = try Realm(configuration: config)
try realm.write {
    let rex = Dog()
    rex.id = 1
    rex.name = "Rex"
    rex.age = 3
    let p = realm.create(Person.self, value: ["id": 7, "name": "Ann"])
    p.dogs.append(rex)
    rex.tags.insert("good")
    rex.scores["fetch"] = 9.5
}
let dogs = realm.objects(Dog.self)
print("dogs.count =", dogs.count)
print("dogs[0].name =", dogs[0].name)
print("first =", dogs.first?.name ?? "nil", " last =", dogs.last?.name ?? "nil")
print("owner via backlink =", realm.object(ofType: Dog.self, forPrimaryKey: 1)?.owners.first?.name ?? "nil")
let frozen = dogs.freeze()
try realm.write { realm.create(Dog.self, value: ["id": 2, "name": "Fido", "age": 5]) }
print("live count =", dogs.count, " frozen count =", frozen.count)
// Frozen results are Sendable: read them on another thread.
let done = DispatchSemaphore(value: 0)
Thread.detachNewThread {
    print("frozen read on another thread:", frozen.map(\.name))
    done.signal()
}
done.wait()
print(dogs[0])

// Notifications: sorted results kept up to date, with Realm's changesets.
let byAge = realm.objects(Dog.self).sorted(byKeyPath: "age")
let token = byAge.observe(keyPaths: ["name", "age"]) { change in
    switch change {
    case .initial(let dogs): print("observe: initial", dogs.map(\.name))
    case .update(let dogs, let deletions, let insertions, let modifications):
        print("observe: deletions \(deletions) insertions \(insertions) modifications \(modifications) ->", dogs.map(\.name))
    case .error(let error): print("observe:", error)
    }
}
realm.refresh()                                                          // delivers .initial
try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 1)!.age = 9 }     // Rex moves after Fido
try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 2)!.name = "Fido II" }
realm.refresh()
token.invalidate()

// Sections: dogs grouped by the first letter of their name, kept from each commit's changeset.
let sections = realm.objects(Dog.self).sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: [SortDescriptor(keyPath: "name")])
let sectionToken = sections.observe { change in
    switch change {
    case .initial(let sections): print("sections: initial", sections.map { "\($0.key): \($0.map(\.name).joined(separator: ", "))" })
    case .update(let sections, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete):
        print("sections: deletions \(deletions.map { [$0[0], $0[1]] }) insertions \(insertions.map { [$0[0], $0[1]] })",
            "new sections \(Array(sectionsToInsert)) gone \(Array(sectionsToDelete)) ->", sections.map { "\($0.key): \($0.map(\.name).joined(separator: ", "))" })
    }
}
realm.refresh()
try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 2)!.name = "Bolt" }   // leaves F, opens B
realm.refresh()
sectionToken.invalidate()
