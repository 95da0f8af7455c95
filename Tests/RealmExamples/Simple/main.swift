// Realm's "Simple" example app (examples/ios/swift/Simple in realm-swift) as a
// command-line program: the models and the logic are Realm's, with
// `import RealmSwift` changed to `import Shoal`; the app delegate's body is
// top-level code, and the program waits for its background thread to finish.

import Foundation
import Shoal

class Dog: Object {
    @Persisted var name: String
    @Persisted var age: Int
}

class Person: Object {
    @Persisted var name: String
    @Persisted var dogs: List<Dog>
}

_ = try! Realm.deleteFiles(for: Realm.Configuration.defaultConfiguration)

// Create a standalone object
let mydog = Dog()

// Set & read properties
mydog.name = "Rex"
mydog.age = 9
print("Name of dog: \(mydog.name)")

// Realms are used to group data together
let realm = try! Realm() // Create realm pointing to default file

// Save your object
realm.beginWrite()
realm.add(mydog)
try! realm.commitWrite()

// Query
let results = realm.objects(Dog.self).filter("name contains 'x'")

// Queries are chainable!
let results2 = results.filter("age > 8")
print("Number of dogs: \(results.count)")
print("Dogs older than eight: \(results2.count)")

// Link objects
let person = Person()
person.name = "Tim"
person.dogs.append(mydog)

try! realm.write {
    realm.add(person)
}

// Multi-threading
let finished = DispatchGroup()
DispatchQueue.global().async(group: finished) {
    autoreleasepool {
        let otherRealm = try! Realm()
        let otherResults = otherRealm.objects(Dog.self).filter("name contains 'Rex'")
        print("Number of dogs \(otherResults.count)")
    }
}
finished.wait()
