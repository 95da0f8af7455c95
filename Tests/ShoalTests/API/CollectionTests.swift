import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// One contract over every collection kind, live and frozen.
@Suite struct RealmCollectionContractTests {
    enum Kind: String, CaseIterable, Sendable { case results, list, set, linkingObjects, anyResults, anyList }

    /// A Realm where dogs 1...5 exist, owned by Ann in order, and the
    /// collection of the given kind holds exactly those five dogs in order.
    static func collection(_ kind: Kind, frozen: Bool) throws -> AnyRealmCollection<Dog> {
        let realm = try makeRealm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            let all = realm.create(AllTypes.self, value: ["id": ObjectId.generate()])
            for i in 1...5 {
                let dog = realm.create(Dog.self, value: ["id": i, "name": "dog\(i)", "owner": ann])
                ann.dogs.append(dog)
                all.dogSet.insert(dog)
            }
        }
        let ann = realm.objects(Person.self)[0]
        let base: AnyRealmCollection<Dog>
        switch kind {
        case .results: base = AnyRealmCollection(realm.objects(Dog.self))
        case .list: base = AnyRealmCollection(ann.dogs)
        case .set: base = AnyRealmCollection(realm.objects(AllTypes.self)[0].dogSet)
        case .linkingObjects: base = AnyRealmCollection(ann.ownedDogs)
        case .anyResults: base = AnyRealmCollection(AnyRealmCollection(realm.objects(Dog.self)))
        case .anyList: base = AnyRealmCollection(AnyRealmCollection(ann.dogs))
        }
        return frozen ? base.freeze() : base
    }

    @Test("count, subscript, first, last, index(of:), objects(at:), isEmpty and iteration", arguments: Kind.allCases, [false, true])
    func readContract(kind: Kind, frozen: Bool) throws {
        let dogs = try Self.collection(kind, frozen: frozen)
        #expect(dogs.count == 5)
        #expect(!dogs.isEmpty)
        #expect(dogs[0].id == 1)
        #expect(dogs.first?.id == 1)
        #expect(dogs.last?.id == 5)
        #expect(dogs.map(\.id) == [1, 2, 3, 4, 5])
        #expect(dogs.index(of: dogs[3]) == 3)
        #expect(dogs.objects(at: IndexSet([0, 4])).map(\.id) == [1, 5])
        #expect(dogs.isFrozen == frozen)
        #expect(dogs.realm?.isFrozen == frozen)
        #expect(!dogs.isInvalidated)
        #expect(dogs.description.contains("\t[4] Dog {"))
        let thawed = try #require(dogs.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.count == 5)
    }
}

@Suite struct ResultsTests {
    @Test("iteration covers the objects that matched when it began, even if they are deleted inside the loop")
    func enumerationSnapshot() throws {
        let realm = try makeRealm()
        try realm.write { for i in 1...5 { realm.create(Dog.self, value: ["id": i]) } }
        let dogs = realm.objects(Dog.self)
        var seen = 0
        try realm.write {
            for dog in dogs {
                realm.delete(dog)
                seen += 1
            }
        }
        #expect(seen == 5)
        #expect(dogs.count == 0)
    }

    @Test("frozen results keep their contents while the live results follow commits")
    func frozenResults() throws {
        let realm = try makeRealm()
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let live = realm.objects(Dog.self)
        let frozen = live.freeze()
        try realm.write { realm.create(Dog.self, value: ["id": 2]) }
        #expect(frozen.count == 1)
        #expect(live.count == 2)
        #expect(frozen.thaw()?.count == 2)
    }

    @Test("results encode as a JSON array of their elements")
    func encodable() throws {
        let realm = try makeRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1]) }
        try realm.write { person.dogs.append(objectsIn: [realm.create(Dog.self, value: ["id": 1])]) }
        let ints = List<Int>()
        ints.append(objectsIn: [3, 1, 2])
        #expect(String(decoding: try JSONEncoder().encode(ints), as: UTF8.self) == "[3,1,2]")
        let all = try realm.write { realm.create(AllTypes.self, value: ["id": ObjectId.generate(), "ints": [4, 5], "doubles": ["a": 1.5], "dates": [Date(timeIntervalSince1970: 0)]]) }
        #expect(String(decoding: try JSONEncoder().encode(all.ints), as: UTF8.self) == "[4,5]")
        #expect(String(decoding: try JSONEncoder().encode(all.doubles), as: UTF8.self) == "{\"a\":1.5}")
        #expect(try JSONEncoder().encode(all.dates).count > 2)
    }

    @Test("managed Codable objects encode their stored values, alone and inside results; unmanaged ones their own")
    func codableObjects() throws {
        let realm = try makeRealm()
        try realm.write {
            realm.create(Note.self, value: ["id": 1, "title": "first", "tags": ["a"]])
            realm.create(Note.self, value: ["id": 2, "title": "second"])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let one = String(decoding: try encoder.encode(realm.object(ofType: Note.self, forPrimaryKey: 1)!), as: UTF8.self)
        #expect(one == #"{"id":1,"tags":["a"],"title":"first"}"#)
        let all = String(decoding: try encoder.encode(realm.objects(Note.self)), as: UTF8.self)
        #expect(all == #"[{"id":1,"tags":["a"],"title":"first"},{"id":2,"tags":[],"title":"second"}]"#)
        let unmanaged = Note(value: ["id": 3, "title": "loose"])
        #expect(String(decoding: try encoder.encode(unmanaged), as: UTF8.self) == #"{"id":3,"tags":[],"title":"loose"}"#)
        let decoded = try JSONDecoder().decode(Note.self, from: Data(one.utf8))
        #expect(decoded.title == "first" && decoded.id == 1 && Array(decoded.tags) == ["a"])
    }
}

@Suite struct ListTests {
    @Test("append, insert, remove, move, swapAt, replace, subscript set and removeAll on a managed list")
    func mutations() throws {
        let realm = try makeRealm()
        let all = try realm.write { realm.create(AllTypes.self, value: ["id": ObjectId.generate()]) }
        try realm.write {
            all.ints.append(1)
            all.ints.append(objectsIn: [2, 3, 4])
            all.ints.insert(0, at: 0)
        }
        #expect(Array(all.ints) == [0, 1, 2, 3, 4])
        try realm.write {
            all.ints.remove(at: 1)
            all.ints.move(from: 0, to: 3)
            all.ints.swapAt(0, 1)
            all.ints.replace(index: 3, object: 9)
            all.ints[0] = 7
        }
        #expect(Array(all.ints) == [7, 2, 4, 9])
        try realm.write {
            all.ints.removeLast()
            all.ints.removeFirst()
        }
        #expect(Array(all.ints) == [2, 4])
        try realm.write { all.ints.removeAll() }
        #expect(all.ints.isEmpty)
    }

    @Test("the same mutations on an unmanaged list")
    func unmanagedMutations() {
        let list = List<String>()
        list.append("b")
        list.insert("a", at: 0)
        list.append(objectsIn: ["c", "d"])
        list.move(from: 3, to: 0)
        list.swapAt(1, 2)
        list.remove(at: 3)
        list[0] = "z"
        #expect(Array(list) == ["z", "b", "a"])
        #expect(list.index(of: "a") == 2)
        #expect(list.realm == nil)
    }

    @Test("a list of objects appends unmanaged objects by adding them; assigning a list replaces its contents")
    func objectList() throws {
        let realm = try makeRealm()
        let ann = try realm.write { realm.create(Person.self, value: ["id": 1]) }
        try realm.write { ann.dogs.append(Dog(value: ["id": 10])) }
        #expect(realm.objects(Dog.self).count == 1)
        let replacement = List<Dog>()
        replacement.append(Dog(value: ["id": 11]))
        replacement.append(Dog(value: ["id": 12]))
        try realm.write { ann.dogs = replacement }
        #expect(ann.dogs.map(\.id) == [11, 12])
        #expect(realm.objects(Dog.self).count == 3)
    }

    @Test("a frozen list keeps its elements; thaw of a list whose owner was deleted is nil")
    func frozenList() throws {
        let realm = try makeRealm()
        let ann = try realm.write { realm.create(Person.self, value: ["id": 1, "dogs": [["id": 1]]]) }
        let frozen = ann.dogs.freeze()
        try realm.write { ann.dogs.append(realm.create(Dog.self, value: ["id": 2])) }
        #expect(frozen.count == 1)
        #expect(frozen.thaw()?.count == 2)
        let list = ann.dogs
        try realm.write { realm.delete(ann) }
        #expect(list.isInvalidated)
        #expect(frozen.thaw() == nil)
    }
}

@Suite struct MutableSetTests {
    @Test("insert, remove, contains, intersects, isSubset, formIntersection, formUnion, subtract, removeAll")
    func setAlgebra() throws {
        let realm = try makeRealm()
        let (a, b) = try realm.write {
            (realm.create(Dog.self, value: ["id": 1, "tags": ["x", "y", "z"]]), realm.create(Dog.self, value: ["id": 2, "tags": ["y", "w"]]))
        }
        #expect(a.tags.contains("x"))
        #expect(a.tags.intersects(b.tags))
        #expect(!a.tags.isSubset(of: b.tags))
        try realm.write {
            a.tags.insert("x")
            a.tags.formUnion(b.tags)
        }
        #expect(Array(a.tags) == ["x", "y", "z", "w"])
        try realm.write { a.tags.subtract(b.tags) }
        #expect(Array(a.tags) == ["x", "z"])
        try realm.write {
            a.tags.insert("y")
            a.tags.formIntersection(b.tags)
        }
        #expect(Array(a.tags) == ["y"])
        #expect(a.tags.isSubset(of: b.tags))
        try realm.write { a.tags.remove("y") }
        #expect(a.tags.isEmpty)
        try realm.write { b.tags.removeAll() }
        #expect(b.tags.count == 0)
    }

    @Test("a set of objects holds each object once")
    func objectSet() throws {
        let realm = try makeRealm()
        let all = try realm.write { realm.create(AllTypes.self, value: ["id": ObjectId.generate()]) }
        let dog = try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        try realm.write {
            all.dogSet.insert(dog)
            all.dogSet.insert(dog)
        }
        #expect(all.dogSet.count == 1)
        #expect(all.dogSet.contains(dog))
        #expect(!all.dogSet.contains(Dog()))
    }
}

@Suite struct MapTests {
    @Test("subscript set and get, removeObject(for:), nil assignment, keys, values, removeAll")
    func mapOperations() throws {
        let realm = try makeRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        try realm.write {
            dog.scores["math"] = 3.5
            dog.scores["art"] = 1
            dog.scores["math"] = 4
        }
        #expect(dog.scores["math"] == 4)
        #expect(dog.scores.keys == ["math", "art"])
        #expect(dog.scores.values == [4, 1])
        #expect(dog.scores.count == 2)
        try realm.write { dog.scores.removeObject(for: "math") }
        #expect(dog.scores["math"] == nil)
        try realm.write { dog.scores["art"] = nil }
        #expect(dog.scores.isEmpty)
        try realm.write {
            dog.scores["a"] = 1
            dog.scores.removeAll()
        }
        #expect(dog.scores.isEmpty)
        let unmanaged = Map<String, Int>()
        unmanaged["x"] = 1
        #expect(unmanaged["x"] == 1)
        #expect(unmanaged.map(\.key) == ["x"])
    }
}

@Suite struct LinkingObjectsTests {
    @Test("linking objects follow links and lists, keep link order, count duplicates, and empty after the origin is deleted")
    func backlinks() throws {
        let realm = try makeRealm()
        let rex = try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        try realm.write {
            for i in 0..<4 { realm.create(Person.self, value: ["id": i, "name": "p\(i)", "dogs": [rex]]) }
            realm.objects(Person.self)[3].dogs.append(rex)
        }
        #expect(rex.owners.map(\.name) == ["p0", "p1", "p2", "p3", "p3"])
        try realm.write { realm.delete(realm.object(ofType: Person.self, forPrimaryKey: 1)!) }
        #expect(rex.owners.map(\.name) == ["p0", "p2", "p3", "p3"])
        let frozen = rex.owners.freeze()
        try realm.write { realm.delete(rex) }
        #expect(rex.owners.isEmpty)
        #expect(frozen.count == 4)
    }

    @Test("linking objects declared with LinkingObjects(fromType:property:) work on managed accessors")
    func legacyDeclaration() throws {
        let realm = try makeRealm()
        let puppy = try realm.write { realm.create(Puppy.self, value: ["name": "Bit"]) }
        #expect(puppy.kennels.isEmpty)
        try realm.write { realm.create(Kennel.self, value: ["name": "North", "puppies": [puppy]]) }
        #expect(puppy.kennels.map(\.name) == ["North"])
        #expect(realm.objects(Puppy.self)[0].kennels.first?.name == "North")
        #expect(puppy.objectSchema["kennels"]?.type == .linkingObjects)
    }
}
