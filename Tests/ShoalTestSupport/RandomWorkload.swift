public import Shoal

/// Random mutations through the public API, for property-based tests: every
/// kind of change (insert, update, delete with links, list, set and map edits).
public enum RandomWorkload {
    static let names = ["Rex", "Fido", "Bella", "Max", "Luna", "Otto", "Kira", "Zed"]

    /// Performs `operations` random mutations inside the caller's write transaction.
    public static func step(_ realm: Realm, _ rng: inout SeededRandom, operations: Int) {
        for _ in 0..<operations {
            let dogs = realm.objects(Dog.self)
            let people = realm.objects(Person.self)
            let kennels = realm.objects(Kennel.self)
            func randomDog() -> Dog? { dogs.isEmpty ? nil : dogs[Int(rng.next() % UInt64(dogs.count))] }
            func randomPerson() -> Person? { people.isEmpty ? nil : people[Int(rng.next() % UInt64(people.count))] }
            let name = names[Int(rng.next() % UInt64(names.count))]
            switch rng.next() % 16 {
            case 0, 1:
                let id = Int(rng.next() % 100_000)
                if realm.object(ofType: Dog.self, forPrimaryKey: id) == nil {
                    realm.create(Dog.self, value: ["id": id, "name": name, "age": Int(rng.next() % 16), "owner": randomPerson() as Any])
                }
            case 2:
                let id = Int(rng.next() % 100_000)
                if realm.object(ofType: Person.self, forPrimaryKey: id) == nil {
                    let person = Person()
                    person.id = id
                    person.name = name
                    if let dog = randomDog() { person.dogs.append(dog) }
                    realm.add(person)
                }
            case 3: randomDog()?.age = Int(rng.next() % 16)
            case 4: randomDog()?.name = name
            case 5: if let dog = randomDog() { realm.delete(dog) }
            case 6: if let person = randomPerson() { realm.delete(person) }
            case 7: if let person = randomPerson(), let dog = randomDog() { person.dogs.append(dog) }
            case 8:
                if let person = randomPerson(), !person.dogs.isEmpty {
                    person.dogs.remove(at: Int(rng.next() % UInt64(person.dogs.count)))
                }
            case 9:
                if let person = randomPerson(), person.dogs.count > 1 {
                    person.dogs.move(from: 0, to: person.dogs.count - 1)
                }
            case 10: randomDog()?.owner = randomPerson()
            case 11: randomDog()?.tags.insert(name)
            case 12: randomDog()?.tags.remove(name)
            case 13: randomDog()?.scores[name] = Double(rng.next() % 100) / 4
            case 14:
                if kennels.count < 3 {
                    realm.create(Kennel.self, value: ["name": name])
                } else if let dog = randomDog() {
                    let kennel = kennels[Int(rng.next() % UInt64(kennels.count))]
                    kennel.residents.append(dog)
                    kennel.byName[name] = dog
                }
            default:
                if let person = randomPerson(), person.dogs.count > 1 { person.dogs.swapAt(0, 1) }
            }
        }
    }
}
