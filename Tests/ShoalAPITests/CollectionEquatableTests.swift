import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// Realm's equality of Results, LinkingObjects and AnyRealmCollection.
@Suite struct CollectionEquatableTests {
    // Follows Realm's RealmCollectionTypeTests testEquatability (ResultsTests).
    @Test("a Results equals itself and its copies, not another Results over the same query")
    func results() throws {
        let realm = try makeRealm()
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let a = realm.objects(Dog.self)
        let b = realm.objects(Dog.self)
        let copy = a
        #expect(a == a && a == copy && b == b)
        #expect(a != b && a != a.filter("id > 0"))
        #expect(a.isEqual(copy) && !a.isEqual(b) && !a.isEqual(nil) && !a.isEqual(1))
    }

    // Follows Realm's RealmCollectionTypeTests testEquatability (LinkingObjectsTests).
    @Test("each read of a LinkingObjects property gives a new value: equal to itself only")
    func linkingObjects() throws {
        let realm = try makeRealm()
        let (a, b) = try realm.write {
            (realm.create(Person.self, value: ["id": 1]), realm.create(Person.self, value: ["id": 2]))
        }
        try realm.write {
            realm.create(Dog.self, value: ["id": 1, "owner": a])
            realm.create(Dog.self, value: ["id": 2, "owner": b])
        }
        #expect(a.ownedDogs != a.ownedDogs && a.ownedDogs != b.ownedDogs)
        let ref = a.ownedDogs
        #expect(ref == ref && ref.isEqual(ref))
    }

    // Follows Realm's RealmCollectionTypeTests testEquatability (AnyRealmCollection over a List and over Results).
    @Test("an AnyRealmCollection compares what it wraps: the same list is equal, other results are not")
    func anyRealmCollection() throws {
        let realm = try makeRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "dogs": [["id": 1]]] as [String: Any]) }
        let other = try realm.write { realm.create(Person.self, value: ["id": 2, "dogs": [["id": 2]]] as [String: Any]) }
        #expect(AnyRealmCollection(person.dogs) == AnyRealmCollection(person.dogs))
        #expect(AnyRealmCollection(person.dogs) != AnyRealmCollection(other.dogs))
        let results = realm.objects(Dog.self)
        #expect(AnyRealmCollection(results) == AnyRealmCollection(results))
        #expect(AnyRealmCollection(results) != AnyRealmCollection(realm.objects(Dog.self)))
        #expect(AnyRealmCollection(results).isEqual(results) && results.isEqual(AnyRealmCollection(results)))
        #expect(!AnyRealmCollection(results).isEqual(person.dogs))
    }
}
