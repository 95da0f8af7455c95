import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Query semantics as Realm's own tests (Realm/Tests/QueryTests.m) assert them.
@Suite struct RealmQueryCompatibilityTests {
    static func strings() throws -> (Realm, Results<AllTypes>) {
        let realm = try makeRealm(types: [AllTypes.self, Dog.self, Person.self])
        try realm.write {
            for value in ["a", nil, "b", nil, ""] as [String?] {
                realm.create(AllTypes.self, value: ["optString": value as Any, "string": value ?? "x", "data": Data((value ?? "x").utf8)])
            }
        }
        return (realm, realm.objects(AllTypes.self))
    }

    // Realm: QueryTests testQueryOnNullableStringColumn, testStringBeginsWith/EndsWith/Contains ("%K BEGINSWITH ''" counts 0).
    @Test("BEGINSWITH, ENDSWITH and CONTAINS with an empty string or null match nothing, with or without options")
    func emptySubstringMatchesNothing() throws {
        let (_, all) = try Self.strings()
        for op in ["BEGINSWITH", "ENDSWITH", "CONTAINS"] {
            for options in ["", "[c]", "[d]", "[cd]"] {
                #expect(all.filter("optString \(op)\(options) ''").count == 0, "\(op)\(options)")
                #expect(all.filter("string \(op)\(options) ''").count == 0, "\(op)\(options)")
                #expect(all.filter("optString \(op)\(options) NULL").count == 0, "\(op)\(options)")
                #expect(all.filter("NOT optString \(op)\(options) ''").count == 5)
            }
            #expect(all.filter("data \(op) %@", Data()).count == 0)
            // A key path on the right that holds an empty string matches nothing either.
            #expect(all.filter("string \(op) optString").map(\.string).sorted() == ["a", "b"])
        }
        #expect(all.filter("optString CONTAINS 'a'").count == 1)
        #expect(all.filter("optString BEGINSWITH 'a'").count == 1)
    }

    // Realm: QueryTests testQueryOnNullableStringColumn ("stringCol LIKE NULL" finds the two nulls).
    @Test("LIKE NULL matches null strings, and NOT LIKE NULL the rest")
    func likeNull() throws {
        let (_, all) = try Self.strings()
        #expect(all.filter("optString LIKE NULL").count == 2)
        #expect(all.filter("optString LIKE[c] nil").count == 2)
        #expect(all.filter("NOT optString LIKE NULL").map { $0.optString }.sorted { ($0 ?? "") < ($1 ?? "") } == ["", "a", "b"])
        #expect(all.filter("optString LIKE '*'").count == 3)
    }

    // Realm: QueryTests testINPredicate ("floatCol IN {1.1}" finds a stored 1.1f).
    @Test("numeric literals are converted to a float property's type: floatCol IN {1.1} finds 1.1")
    func floatLiterals() throws {
        let realm = try makeRealm(types: [AllTypes.self, Dog.self, Person.self])
        try realm.write {
            realm.create(AllTypes.self, value: ["float": Float(1.1), "double": Double(1.11), "optFloat": Float(2.2)] as [String: Any])
        }
        let all = realm.objects(AllTypes.self)
        #expect(all.filter("float IN {1.1}").count == 1)
        #expect(all.filter("float IN {1.1, 2.2}").count == 1)
        #expect(all.filter("float == 1.1").count == 1)
        #expect(all.filter("float BETWEEN {1.1, 1.1}").count == 1)
        #expect(all.filter("optFloat == 2.2").count == 1)
        #expect(all.filter("float IN {0, 2, 3}").count == 0)
        #expect(all.filter("double IN {1.11}").count == 1)
        #expect(all.filter("float IN %@", [Float(1.1)]).count == 1)
    }

    static func message(_ format: String, _ type: Object.Type = AllTypes.self) -> String? {
        do {
            try PredicateFormat(format).validate(for: type)
            return nil
        } catch let error as ShoalError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    // Realm: QueryTests testStringLike, testQueryBetween, testCountOnArrayCollection.
    @Test("LIKE[d], BETWEEN on strings, data and bools, and aggregate against aggregate are refused with Realm's messages")
    func realmRefusals() throws {
        #expect(Self.message("string LIKE[d] '*'")?.contains("Operator 'LIKE' not supported with diacritic-insensitive modifier.") == true)
        #expect(Self.message("string LIKE[cd] '*'")?.contains("Operator 'LIKE' not supported with diacritic-insensitive modifier.") == true)
        #expect(Self.message("string BETWEEN {'', ''}")?.contains("Operator 'BETWEEN' not supported for type 'string'") == true)
        #expect(Self.message("bool BETWEEN {true, false}")?.contains("Operator 'BETWEEN' not supported for type 'bool'") == true)
        #expect(Self.message("ints.@count == ints.@count")?.contains("aggregate operations cannot be compared with other aggregate operations") == true)
        #expect(Self.message("ints.@sum > dogs.@count")?.contains("aggregate operations cannot be compared with other aggregate operations") == true)
        // What Realm accepts stays accepted.
        #expect(Self.message("int BETWEEN {1, 2}") == nil)
        #expect(Self.message("ints.@count == int") == nil)
        #expect(Self.message("string LIKE[c] '*a*'") == nil)
    }

    // Realm: PrimitiveListTests / AnyRealmValueTests (`array[-1]` stops with "negative value").
    @Test("a negative index stops with Realm's message, managed or not")
    func negativeIndex() async {
        let unmanaged = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(1)
            _ = list[-1]
        }
        #expect(ErrorTests.stderr(unmanaged).contains("Cannot pass a negative value for 'index'."))
        let managed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm(types: [AllTypes.self, Dog.self, Person.self])
            try realm.write {
                let object = realm.create(AllTypes.self, value: ["ints": [1, 2]])
                object.ints.insert(3, at: -1)
            }
        }
        #expect(ErrorTests.stderr(managed).contains("Cannot pass a negative value for 'index'."))
    }

    // Realm: RealmCollectionTypeTests (unmanaged list) testFreeze.
    @Test("freezing an unmanaged list stops with Realm's wording")
    func unmanagedFreeze() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = List<Int>().freeze()
        }
        #expect(ErrorTests.stderr(result).contains("This method may only be called on RLMArray instances retrieved from an RLMRealm"))
    }
}
