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

/// A link to a legacy model, to query its `RealmProperty` through the link.
final class LegacyPet: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var owner: LegacyPerson?
}

/// The `RealmProperty` part of Realm's `CodableObject` (CodableTests.swift).
final class CodableLegacyObject: Object, Codable {
    @Persisted var string = ""
    var otherInt = RealmProperty<Int?>()
    var otherInt8 = RealmProperty<Int8?>()
    var otherInt16 = RealmProperty<Int16?>()
    var otherInt32 = RealmProperty<Int32?>()
    var otherInt64 = RealmProperty<Int64?>()
    var otherFloat = RealmProperty<Float?>()
    var otherDouble = RealmProperty<Double?>()
    var otherBool = RealmProperty<Bool?>()

    /// Realm's `legacyObjectString`, cut to these properties.
    static func json(null: Bool) -> Data {
        func v(_ value: String) -> String { null ? "null" : value }
        return Data("""
            {"string": "abc", "otherBool": \(v("true")), "otherInt": \(v("123")), "otherInt8": \(v("123")),
             "otherInt16": \(v("123")), "otherInt32": \(v("123")), "otherInt64": \(v("123")),
             "otherFloat": \(v("2.5")), "otherDouble": \(v("2.5"))}
            """.utf8)
    }
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

    @Test("typed queries compare a RealmProperty through its value, directly and through a link")
    func typedQueries() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
            objectTypes: [LegacyPerson.self, LegacyPet.self]))
        try realm.write {
            let ann = realm.create(LegacyPerson.self, value: ["id": 1, "name": "Ann", "age": 33, "mood": AnyRealmValue.string("calm")])
            realm.create(LegacyPerson.self, value: ["id": 2, "name": "Bob"])
            realm.create(LegacyPerson.self, value: ["id": 3, "name": "Cy", "age": 12])
            realm.create(LegacyPet.self, value: ["id": 1, "owner": ann])
        }
        let people = realm.objects(LegacyPerson.self).sorted(byKeyPath: "id")
        #expect(people.where { $0.age == 33 }.map(\.name) == ["Ann"])
        #expect(people.where { $0.age == nil }.map(\.name) == ["Bob"])
        #expect(people.where { $0.age < 20 || $0.name == "Bob" }.map(\.name) == ["Bob", "Cy"])
        #expect(people.where { $0.mood == .string("calm") }.map(\.name) == ["Ann"])
        #expect(realm.objects(LegacyPet.self).where { $0.owner.age > 30 }.count == 1)
        #expect(realm.objects(LegacyPet.self).where { $0.owner.age < 30 }.count == 0)
    }

    // Realm: CodableTests.testNullableRealmProperty and the RealmProperty part of testObject.
    @Test("a Codable object decodes its RealmProperty values and nulls, and encodes them, unmanaged and managed")
    func codable() throws {
        let nulls = try JSONDecoder().decode(CodableLegacyObject.self, from: CodableLegacyObject.json(null: true))
        #expect(nulls.otherBool.value == nil)
        #expect(nulls.otherInt.value == nil)
        #expect(nulls.otherInt8.value == nil)
        #expect(nulls.otherInt16.value == nil)
        #expect(nulls.otherInt32.value == nil)
        #expect(nulls.otherInt64.value == nil)
        #expect(nulls.otherFloat.value == nil)
        #expect(nulls.otherDouble.value == nil)

        let obj = try JSONDecoder().decode(CodableLegacyObject.self, from: CodableLegacyObject.json(null: false))
        #expect(obj.otherBool.value == true)
        #expect(obj.otherInt.value == 123)
        #expect(obj.otherInt8.value == 123)
        #expect(obj.otherInt16.value == 123)
        #expect(obj.otherInt32.value == 123)
        #expect(obj.otherInt64.value == 123)
        #expect(obj.otherFloat.value == 2.5)
        #expect(obj.otherDouble.value == 2.5)

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func encoded(_ object: CodableLegacyObject) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: encoder.encode(object)) as? [String: Any] ?? [:]
        }
        #expect(try encoded(obj)["otherInt"] as? Int == 123)
        #expect(try encoded(nulls)["otherInt"] is NSNull)
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
            objectTypes: [CodableLegacyObject.self]))
        try realm.write { realm.add(obj) }
        try realm.write { obj.otherInt.value = 7 }
        let managed = try encoded(realm.objects(CodableLegacyObject.self).first!)
        #expect(managed["otherInt"] as? Int == 7)
        #expect(managed["otherDouble"] as? Double == 2.5)
        #expect(managed["string"] as? String == "abc")
    }
}
