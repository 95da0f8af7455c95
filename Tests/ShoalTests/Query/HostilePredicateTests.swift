import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

/// Predicates that trapped instead of throwing or answering (issue 16):
/// dates out of `Timestamp`'s range, NaN dates, and empty lists.
@Suite("Hostile predicates")
struct HostilePredicateTests {
    @Test("a timestamp literal at the end of 64-bit seconds parses, binds and describes", arguments: [
        "date == T9223372036854775807:0", "date < T-9223372036854775808:0", "date > T9223372036854775807:999999999",
    ])
    func timestampAtTheEnds(format: String) throws {
        let parsed = try PredicateFormat(format)
        try parsed.validate(for: AllTypes.self)
        #expect(parsed.description.hasPrefix("date "))
        let realm = try makeRealm()
        #expect(realm.objects(AllTypes.self).filter(format).count == 0)
    }

    @Test("a predicate nested past the limit is a syntax error, not a stack overflow (found by the predicate fuzz target)", arguments: [
        String(repeating: "(", count: 4_700) + "int == 1" + String(repeating: ")", count: 4_700),
        String(repeating: "NOT ", count: 10_000) + "int == 1",
        String(repeating: "(", count: PredicateParser.maximumDepth) + "int == 1" + String(repeating: ")", count: PredicateParser.maximumDepth),
        String(repeating: "!", count: PredicateParser.maximumDepth) + "int == 1",
    ])
    func tooDeep(format: String) throws {
        #expect(throws: PredicateFormatError.self) { try PredicateParser.parse(format) }
        let error = #expect(throws: ShoalError.self) { try PredicateFormat(format) }
        #expect(error?.message.contains("nests more than \(PredicateParser.maximumDepth) levels deep") == true)
    }

    @Test("a predicate nested to the limit parses, binds and counts", arguments: [PredicateParser.maximumDepth - 1, 1])
    func deepEnough(levels: Int) throws {
        let parens = String(repeating: "(", count: levels) + "int == 1" + String(repeating: ")", count: levels)
        let nots = String(repeating: "NOT ", count: levels - 1) + "int == 1"
        let realm = try makeRealm()
        try realm.write { realm.add(AllTypes(value: ["int": 1])) }
        #expect(realm.objects(AllTypes.self).filter(parens).count == 1)
        #expect(realm.objects(AllTypes.self).filter(nots).count == ((levels - 1) % 2 == 0 ? 1 : 0))
    }

    @Test("a timestamp whose nanoseconds are Int64.min is an invalid date, not a trap (found by the predicate fuzz target)")
    func timestampNanosecondsMinimum() throws {
        #expect(throws: (any Error).self) { try PredicateFormat("date < T-86400:-9223372036854775808") }
        #expect(throws: (any Error).self) { try PredicateFormat("date < T-1:-1000000000") }
        #expect(throws: Never.self) { try PredicateFormat("date < T-1:-999999999") }
    }

    @Test("a date literal past the last year of 64-bit seconds is a syntax error")
    func yearOutOfRange() throws {
        #expect(throws: (any Error).self) { try PredicateFormat("date == 99999999999999-01-01@00:00:00") }
        #expect(throws: (any Error).self) { try PredicateFormat("date == 292277026596-01-01@00:00:00") }
        let last = try PredicateFormat("date == 292277026595-12-31@23:59:59")
        try last.validate(for: AllTypes.self)
    }

    @Test("a date argument out of range or NaN binds as Realm stores it")
    func dateArguments() throws {
        let realm = try makeRealm()
        try realm.write { realm.add(AllTypes()) }
        let epoch = Date(timeIntervalSince1970: 0)
        try realm.write { realm.objects(AllTypes.self).first!.date = epoch }
        for date in [Date(timeIntervalSince1970: 1e19), Date(timeIntervalSince1970: -1e19), Date(timeIntervalSinceReferenceDate: .infinity)] {
            let format = try PredicateFormat("date == %@", date)
            try format.validate(for: AllTypes.self)
            #expect(realm.objects(AllTypes.self).filter("date == %@", date).count == 0)
            #expect(!format.description.isEmpty)
        }
        let nan = Date(timeIntervalSinceReferenceDate: .nan)
        #expect(try PredicateFormat("date == %@", nan).description == "date == T0:0")
        #expect(realm.objects(AllTypes.self).filter("date == %@", nan).count == 1)
    }

    @Test("a NaN date is stored as the epoch, as Realm stores it, and printing the object works")
    func nanDateStored() throws {
        let realm = try makeRealm()
        let object = AllTypes()
        object.date = Date(timeIntervalSinceReferenceDate: .nan)
        try realm.write { realm.add(object) }
        let stored = try #require(realm.objects(AllTypes.self).first)
        #expect(stored.date == Date(timeIntervalSince1970: 0))
        #expect("\(stored)".contains("date = 1970-01-01"))
    }

    @Test("a comparison with an empty list validates and matches nothing", arguments: [
        "name == {}", "age < {}", "age >= {}", "name BEGINSWITH {}", "name CONTAINS[c] {}", "ANY tags == {}",
        "age IN {}", "name != {}", "name LIKE {}",
    ])
    func emptyList(format: String) throws {
        try PredicateFormat(format).validate(for: Dog.self)
        let realm = try makeRealm()
        try realm.write {
            for id in 1...3 { realm.create(Dog.self, value: ["id": id, "name": "Rex \(id)", "age": id, "tags": ["a"]]) }
        }
        let dogs = realm.objects(Dog.self)
        #expect(dogs.filter(format).count == 0)
        #expect(dogs.index(matching: format) == nil)
        #expect(dogs.filter("NOT (\(format))").count == 3)
    }

    @Test("an empty array argument is an empty list")
    func emptyArrayArgument() throws {
        try PredicateFormat("age == %@", [Int]()).validate(for: Dog.self)
        let realm = try makeRealm()
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex", "age": 3]) }
        #expect(realm.objects(Dog.self).filter("age == %@", [Int]()).count == 0)
        #expect(realm.objects(Dog.self).filter("age IN %@", [Int]()).count == 0)
    }

    @Test("a decimal compared with an infinite double does not trap, and infinity is past every decimal")
    func decimalAgainstInfinity() throws {
        // Minimized from a crash of the predicate fuzz target: `1e3081` is infinity, which `Decimal` cannot hold.
        let realm = try makeRealm()
        try realm.write { realm.add(AllTypes()) }
        let all = realm.objects(AllTypes.self)
        #expect(all.filter("decimal == 1e3081").count == 0)
        #expect(all.filter("decimal < 1e3081").count == 1)
        #expect(all.filter("decimal > -1e3081").count == 1)
        #expect(Decimal128(Double.infinity).isNaN && Decimal128(Double.nan).isNaN)
    }
}
