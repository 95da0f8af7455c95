import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// Realm's `RealmPropertyObject` (RealmPropertyTests.swift), with its
/// `@objc dynamic var int` declared `@Persisted`.
final class RealmPropertyObject: Object {
    var optionalIntValue = RealmProperty<Int?>()
    var optionalInt8Value = RealmProperty<Int8?>()
    var optionalInt16Value = RealmProperty<Int16?>()
    var optionalInt32Value = RealmProperty<Int32?>()
    var optionalInt64Value = RealmProperty<Int64?>()
    var optionalFloatValue = RealmProperty<Float?>()
    var optionalDoubleValue = RealmProperty<Double?>()
    var optionalBoolValue = RealmProperty<Bool?>()
    @Persisted var int = 0
}

/// A legacy model as real Realm code declares one: `let` properties beside `@Persisted`.
final class LegacyPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    let age = RealmProperty<Int?>()
    let mood = RealmProperty<AnyRealmValue>()
    @Persisted var height: Double = 0
}

@Suite struct RealmPropertyTests {
    private func check<T: Equatable>(_ keyPath: KeyPath<RealmPropertyObject, RealmProperty<T?>>, _ value: T?) throws {
        let o = RealmPropertyObject()
        o[keyPath: keyPath].value = value
        #expect(o[keyPath: keyPath].value == value)
        o[keyPath: keyPath].value = nil
        #expect(o[keyPath: keyPath].value == nil)
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
            objectTypes: [RealmPropertyObject.self]))
        try realm.write { realm.add(o) }
        #expect(o[keyPath: keyPath].value == nil)
        try realm.write { o[keyPath: keyPath].value = value }
        #expect(o[keyPath: keyPath].value == value)
        #expect(realm.objects(RealmPropertyObject.self).first![keyPath: keyPath].value == value)
    }

    // Realm: RealmPropertyTests.testObject.
    @Test("each optional numeric RealmProperty reads and writes unmanaged and managed, as Realm's testObject")
    func object() throws {
        try check(\.optionalIntValue, 123456)
        try check(\.optionalInt8Value, 127 as Int8)
        try check(\.optionalInt16Value, 32766 as Int16)
        try check(\.optionalInt32Value, 2147483647 as Int32)
        try check(\.optionalInt64Value, 0x7FFFFFFFFFFFFFFF as Int64)
        try check(\.optionalFloatValue, 12345.6789 as Float)
        try check(\.optionalDoubleValue, 12345.6789 as Double)
        try check(\.optionalBoolValue, true)
    }

    @Test("RealmProperty is in the schema under its name, persisted across reopening, and queryable by name")
    func persistedAndQueryable() throws {
        let url = temporaryDatabaseURL()
        let config = Realm.Configuration(fileURL: url, objectTypes: [LegacyPerson.self])
        do {
            let realm = try Realm(configuration: config)
            let schema = try #require(realm.schema["LegacyPerson"])
            #expect(schema.properties.map(\.name) == ["id", "name", "age", "mood", "height"])
            #expect(schema["age"]?.type == .int && schema["age"]?.isOptional == true)
            let ann = LegacyPerson()
            ann.id = 1
            ann.name = "Ann"
            ann.age.value = 33
            ann.mood.value = .string("calm")
            ann.height = 1.7
            let bob = LegacyPerson()
            bob.id = 2
            bob.name = "Bob"
            try realm.write {
                realm.add([ann, bob])
                realm.create(LegacyPerson.self, value: ["id": 3, "name": "Cy", "age": 12])
            }
            // The added object now reads and writes the Realm.
            try realm.write { ann.age.value = 34 }
            #expect(realm.objects(LegacyPerson.self).filter("age == 34").first?.name == "Ann")
        }
        let realm = try Realm(configuration: config)
        let people = realm.objects(LegacyPerson.self).sorted(byKeyPath: "id")
        #expect(people.map(\.age.value) == [34, nil, 12])
        #expect(people[0].mood.value == .string("calm"))
        #expect(people[0].height == 1.7)
        #expect(realm.objects(LegacyPerson.self).filter("age >= 18").map(\.name) == ["Ann"])
        #expect(realm.objects(LegacyPerson.self).filter("age == nil").map(\.name) == ["Bob"])
        #expect(people.max(ofProperty: "age") as Int? == 34)
        try realm.write { people[1].age.value = 50 }
        #expect(realm.objects(LegacyPerson.self).filter("age > 40").map(\.name) == ["Bob"])
    }

    @Test("init(value:), the by-name subscript and create set and read a RealmProperty, unmanaged and managed")
    func dynamicAccess() throws {
        let dee = LegacyPerson(value: ["id": 5, "name": "Dee", "age": 40, "mood": AnyRealmValue.int(7)])
        #expect(dee.age.value == 40)
        #expect(dee.mood.value == .int(7))
        #expect(dee["age"] as? Int == 40)
        dee["age"] = 41
        #expect(dee.age.value == 41)
        dee["age"] = nil
        #expect(dee["age"] == nil)
        #expect(LegacyPerson(value: [6, "Eve", 30, AnyRealmValue.none, 1.5]).age.value == 30)
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
            objectTypes: [LegacyPerson.self]))
        try realm.write { realm.add(dee) }
        #expect(dee["age"] == nil)
        try realm.write { dee["age"] = 42 }
        #expect(dee.age.value == 42)
        #expect(dee["age"] as? Int == 42)
        #expect(realm.objects(LegacyPerson.self).first?["age"] as? Int == 42)
    }
}
