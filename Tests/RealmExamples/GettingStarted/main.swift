// Realm's "GettingStarted" playground (examples/ios/swift/GettingStarted.playground
// in realm-swift) as a command-line program: the models and the logic are
// Realm's, with `import RealmSwift` changed to `import Shoal`. Each expression
// the playground shows in its sidebar is printed, and `Car.description`
// spells out the optional it interpolates (the same text, without the
// compiler's warning).

import Foundation
import Shoal

//: I. Define the data entities

class Person: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var spouse: Person?
    @Persisted var cars: List<Car>

    override var description: String { return "Person {\(name), \(age), \(spouse?.name ?? "nil")}" }
}

class Car: Object {
    @Persisted var brand: String
    @Persisted var name: String?
    @Persisted var year: Int

    override var description: String { return "Car {\(brand), \(String(describing: name)), \(year)}" }
}

//: II. Init the realm file

let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "TemporaryRealm"))

//: III. Create the objects

let car1 = Car(value: ["brand": "BMW", "year": 1980])

let car2 = Car()
car2.brand = "DeLorean"
car2.name = "Outatime"
car2.year = 1981

// people
let wife = Person()
wife.name = "Jennifer"
wife.cars.append(objectsIn: [car1, car2])
wife.age = 47

let husband = Person(value: [
    "name": "Marty",
    "age": 47,
    "spouse": wife
])

wife.spouse = husband
print(wife)
print(husband)

//: IV. Write objects to the realm

try! realm.write {
    realm.add(husband)
}

//: V. Read objects back from the realm

let favorites = ["Jennifer"]

let favoritePeopleWithSpousesAndCars = realm.objects(Person.self)
    .filter("cars.@count > 1 && spouse != nil && name IN %@", favorites)
    .sorted(byKeyPath: "age")

for person in favoritePeopleWithSpousesAndCars {
    print(person.name)
    print(person.age)

    guard let car = person.cars.first else {
        continue
    }
    print(String(describing: car.name))
    print(car.brand)

//: VI. Update objects

    try! realm.write {
        car.year += 1
    }
    print(car.year)
}
print(car1)

//: VII. Delete objects

try! realm.write {
    realm.deleteAll()
}

print(realm.objects(Person.self).count)
