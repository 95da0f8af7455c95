import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// `index(matching:)` on an unmanaged `List`, evaluated in memory as Realm's
/// unmanaged `RLMArray` evaluates a predicate on each element.
@Suite struct UnmanagedIndexMatchingTests {
    static func dogs() -> List<Dog> {
        let ann = Person(value: ["id": 1, "name": "Ann"])
        let list = List<Dog>()
        list.append(Dog(value: ["id": 1, "name": "Rex", "age": 2]))
        list.append(Dog(value: ["id": 2, "name": "Fido", "age": 5, "owner": ann]))
        list.append(Dog(value: ["id": 3, "name": "Spot", "age": 7, "owner": ann]))
        return list
    }

    @Test("a format string, a typed query and a #Predicate find the first matching element of an unmanaged list")
    func finds() {
        let list = Self.dogs()
        #expect(list.index(matching: "age > %@", 3) == 1)
        #expect(list.index(matching: "name BEGINSWITH 'S'") == 2)
        #expect(list.index(matching: { $0.age > 6 }) == 2)
        #expect(list.index(matching: #Predicate<Dog> { $0.age < 3 }) == 0)
        #expect(list.index(matching: "age > 100") == nil)
        #expect(List<Dog>().index(matching: "age > 1") == nil)
        #expect(list.allSatisfy { $0.realm == nil })
    }

    @Test("key paths through unmanaged linked objects are followed, and elements sharing a primary key are each tested as they are")
    func linksAndSharedKeys() {
        let list = Self.dogs()
        #expect(list.index(matching: "owner.name == 'Ann'") == 1)
        #expect(list.index(matching: "owner == nil") == 0)
        list.append(Dog(value: ["id": 1, "name": "Rex again", "age": 9]))
        #expect(list.index(matching: "id == 1 AND age > 8") == 3)
        #expect(list.index(matching: "name == 'Rex'") == 0)
    }
}

/// `index(matching:)` on an unmanaged `List` of values.
@Suite struct UnmanagedValueIndexMatchingTests {
    // Follows Realm's ListTests testPrimitive (an unmanaged object's list of Int).
    @Test("a list of values answers self predicates and typed queries in memory")
    func values() {
        let ints = List<Int>()
        ints.append(objectsIn: [5, 6, 7, 8])
        #expect(ints.index(matching: "self == 7") == 2)
        #expect(ints.index(matching: "self == 9") == nil)
        #expect(ints.index(matching: { $0 == 7 && $0 < 456 }) == 2)
        #expect(ints.index(matching: { $0 == 9 }) == nil)
        let names = List<String>()
        names.append(objectsIn: ["Rex", "fido"])
        #expect(names.index(matching: "self BEGINSWITH[c] 'F'") == 1)
        #expect(List<Int>().index(matching: "self == 1") == nil)
    }
}
