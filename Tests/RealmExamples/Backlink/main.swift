// Realm's "Backlink" example app (examples/ios/swift/Backlink in realm-swift)
// as a command-line program: the models and the logic are Realm's, with
// `import RealmSwift` changed to `import Shoal`; the app delegate's body is
// top-level code.

import Shoal

class Dog: Object {
    @Persisted var name: String
    @Persisted var age: Int
    // Define "owners" as the inverse relationship to Person.dogs
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

class Person: Object {
    @Persisted var name: String
    @Persisted var dogs: List<Dog>
}

_ = try! Realm.deleteFiles(for: Realm.Configuration.defaultConfiguration)

let realm = try! Realm()
try! realm.write {
    realm.create(Person.self, value: ["John", [["Fido", 1]]])
    realm.create(Person.self, value: ["Mary", [["Rex", 2]]])
}

// Log all dogs and their owners using the "owners" inverse relationship
let allDogs = realm.objects(Dog.self)
for dog in allDogs {
    let ownerNames = Array(dog.owners.map(\.name))
    print("\(dog.name) has \(ownerNames.count) owners (\(ownerNames))")
}
