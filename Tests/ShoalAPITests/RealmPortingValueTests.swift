import Dispatch
import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// Every kind of value a Realm program passes in a value dictionary.
final class BridgedValues: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var flag: Bool
    @Persisted var count: Int
    @Persisted var ratio: Double
    @Persisted var small: Float
    @Persisted var name: String
    @Persisted var bytes: Data
    @Persisted var when: Date
    @Persisted var optWhen: Date?
    @Persisted var uuid: UUID
    @Persisted var price: Decimal128
    @Persisted var anything: AnyRealmValue
    @Persisted var dates: List<Date>
    @Persisted var link: BridgedValues?
}

/// Realm's `@objc enum ...: Int, RealmEnum`, as it ports to Linux.
enum PortedKind: Int, RealmEnum {
    case cat, dog
}

final class PortedPet: Object {
    @Persisted var kind: PortedKind
    @Persisted var optKind: PortedKind?
}

actor RefreshingStore {
    var realm: Realm?
    func open(_ config: Realm.Configuration) async throws { realm = try await Realm(configuration: config, actor: self) }
    func count() -> Int { realm!.objects(BridgedValues.self).count }
    func refreshAndCount() async -> (changed: Bool, count: Int) {
        let changed = await realm!.asyncRefresh()
        return (changed, realm!.objects(BridgedValues.self).count)
    }
}

/// Foundation's types and the Realm API a ported program uses beyond the models.
@Suite struct RealmPortingValueTests {
    static func configuration() -> Realm.Configuration {
        Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [BridgedValues.self, PortedPet.self, Person.self, Dog.self])
    }
    static func realm() throws -> Realm { try Realm(configuration: configuration()) }

    static func stderr(_ result: ExitTest.Result?) -> String {
        result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    }

    // MARK: Foundation's bridged types

    @Test("create and init(value:) take NSNumber, NSDate, NSString, NSData, NSUUID and NSNull wherever Swift values go")
    func bridgedValues() throws {
        let realm = try Self.realm()
        let when = Date(timeIntervalSince1970: 1_000)
        let uuid = UUID()
        let value: [String: Any] = [
            "id": NSNumber(value: 1), "flag": NSNumber(value: true), "count": NSNumber(value: 42), "ratio": NSNumber(value: 2.5),
            "small": NSNumber(value: Float(1.5)), "name": NSString(string: "Rex"), "bytes": NSData(data: Data([1, 2])),
            "when": NSDate(timeIntervalSince1970: 1_000), "optWhen": NSNull(), "uuid": NSUUID(uuidString: uuid.uuidString)!,
            "price": NSDecimalNumber(string: "12.25"), "anything": NSDate(timeIntervalSince1970: 1_000),
            "dates": NSArray(array: [NSDate(timeIntervalSince1970: 1), NSDate(timeIntervalSince1970: 2)]),
        ]
        try realm.write { realm.create(BridgedValues.self, value: value) }
        let stored = try #require(realm.object(ofType: BridgedValues.self, forPrimaryKey: 1))
        #expect(stored.flag && stored.count == 42 && stored.ratio == 2.5 && stored.small == 1.5)
        #expect(stored.name == "Rex" && stored.bytes == Data([1, 2]) && stored.when == when && stored.optWhen == nil)
        #expect(stored.uuid == uuid && stored.price == Decimal128(stringLiteral: "12.25"))
        #expect(stored.anything == .date(when))
        #expect(Array(stored.dates) == [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2)])

        // Realm's rules for numbers: 0 and 1 are Booleans, a Boolean is an integer.
        let unmanaged = BridgedValues(value: ["id": 2, "flag": NSNumber(value: 1), "count": NSNumber(value: true),
            "when": NSDate(timeIntervalSince1970: 5), "link": NSDictionary(dictionary: ["id": NSNumber(value: 3)])])
        #expect(unmanaged.flag && unmanaged.count == 1 && unmanaged.when == Date(timeIntervalSince1970: 5))
        try realm.write { realm.add(unmanaged) }
        #expect(realm.object(ofType: BridgedValues.self, forPrimaryKey: 2)?.link?.id == 3)
        try realm.write { stored["name"] = NSString(string: "Max") }
        #expect(stored.name == "Max")
        // Query arguments: an NSNumber 1 is the integer 1, not `true`.
        #expect(realm.objects(BridgedValues.self).filter("count == %@", NSNumber(value: 1)).map(\.id) == [2])
        #expect(realm.objects(BridgedValues.self).filter("when == %@", NSDate(timeIntervalSince1970: 1_000)).map(\.id) == [1])
    }

    @Test("an NSNumber that is not an integer for an int property stops with Realm's message naming the value")
    func bridgedMismatch() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = BridgedValues(value: ["count": NSNumber(value: 2.5)])
        }
        #expect(Self.stderr(result).contains("for 'int' property 'BridgedValues.count'"))
    }

    @Test("min, max, sum and average of a property return NSNumber and NSDate when asked for them")
    func foundationAggregates() throws {
        let realm = try Self.realm()
        try realm.write {
            realm.create(BridgedValues.self, value: ["id": 1, "count": 3, "ratio": 1.5, "when": Date(timeIntervalSince1970: 10)])
            realm.create(BridgedValues.self, value: ["id": 2, "count": 5, "ratio": 2.5, "when": Date(timeIntervalSince1970: 20)])
        }
        let all = realm.objects(BridgedValues.self)
        let minCount: NSNumber? = all.min(ofProperty: "count")
        let maxRatio: NSNumber? = all.max(ofProperty: "ratio")
        let sum: NSNumber = all.sum(ofProperty: "count")
        let average: NSNumber? = all.average(ofProperty: "ratio")
        let earliest: NSDate? = all.min(ofProperty: "when")
        let latest: NSDate? = all.max(ofProperty: "when")
        #expect(minCount?.intValue == 3 && maxRatio?.doubleValue == 2.5 && sum.intValue == 8 && average?.doubleValue == 2)
        #expect(earliest?.timeIntervalSince1970 == 10 && latest?.timeIntervalSince1970 == 20)
        // The Swift forms still resolve by the annotated type.
        let swiftMin: Int? = all.min(ofProperty: "count")
        #expect(swiftMin == 3)
        let none: NSNumber? = all.filter("count > 10").max(ofProperty: "count")
        #expect(none == nil)
    }

    // MARK: Missing API

    @Test("asyncRefresh on an actor-confined Realm moves it to another Realm's commit")
    func asyncRefresh() async throws {
        let config = Self.configuration()
        let store = RefreshingStore()
        try await store.open(config)
        #expect(await store.count() == 0)
        let writer = try Realm(configuration: config)
        try writer.write { writer.create(BridgedValues.self, value: ["id": 1]) }
        let (changed, count) = await store.refreshAndCount()
        #expect(changed && count == 1)
    }

    @Test("value(forKey:), setValue(_:forKey:) and their key-path forms read and write properties by name")
    func keyValueCoding() throws {
        let realm = try Self.realm()
        let dog = Dog()
        dog.setValue("Rex", forKey: "name")
        dog.setValue(3, forKey: "age")
        #expect(dog.value(forKey: "name") as? String == "Rex" && dog.value(forKey: "age") as? Int == 3)
        try realm.write {
            let owner = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            dog.setValue(1, forKey: "id")
            dog.setValue(owner, forKey: "owner")
            realm.add(dog)
            dog.setValue("Bergen", forKeyPath: "owner.city")
            dog.setValuesForKeys(["breed": "collie", "age": 4])
        }
        #expect(dog.value(forKeyPath: "owner.name") as? String == "Ann")
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.city == "Bergen")
        #expect(dog.dictionaryWithValues(forKeys: ["breed", "age"])["age"] as? Int == 4)
        #expect(dog.dictionaryWithValues(forKeys: ["breed"])["breed"] as? String == "collie")
    }

    // Realm: ObjectIdTests.testObjectIdInitialization.
    @Test("ObjectId from a string in the source and from a timestamp, machine and process identifier")
    func objectIdInitializers() throws {
        let strValue = "000123450000ffbeef91906c"
        let objectId = ObjectId("000123450000ffbeef91906c")
        #expect(objectId.stringValue == strValue)
        #expect(try objectId == ObjectId(string: strValue))

        let now = Date()
        let objectId2 = ObjectId(timestamp: now, machineId: 10, processId: 20)
        #expect(Int(now.timeIntervalSince1970) == Int(objectId2.timestamp.timeIntervalSince1970))
        #expect(Array(objectId2.bytes[4..<9]) == [10, 0, 0, 20, 0])
    }

    @Test("ObjectId from a string in the source that is not 24 hex digits stops naming it")
    func objectIdStaticStringInvalid() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ObjectId("not an object id")
        }
        #expect(Self.stderr(result).contains("Invalid ObjectId string 'not an object id'"))
    }

    // Realm: Decimal128Tests (init(string:) is throwing; a non-number is NaN).
    @Test("Decimal128(string:) is a throwing initializer that gives NaN for a non-number; init(value:) and init(number:) convert")
    func decimal128Initializers() throws {
        let d = try Decimal128(string: "123.456")
        #expect(d == Decimal128(stringLiteral: "123.456"))
        #expect(try Decimal128(string: "not a number").isNaN)
        #expect(Decimal128(value: 5) == 5 && Decimal128(value: "2.5") == 2.5 && Decimal128(value: 1.5) == 1.5)
        #expect(Decimal128(value: NSDecimalNumber(string: "0.1")) == Decimal128(stringLiteral: "0.1"))
        #expect(Decimal128(number: NSNumber(value: 7)) == 7 && Decimal128() == 0)
    }

    @Test("a RealmEnum is stored as its raw value and queried by it")
    func realmEnum() throws {
        let realm = try Self.realm()
        try realm.write {
            realm.create(PortedPet.self, value: ["kind": PortedKind.dog])
            realm.create(PortedPet.self, value: ["kind": 0, "optKind": 1])
        }
        #expect(realm.objects(PortedPet.self).map(\.kind) == [.dog, .cat])
        #expect(realm.objects(PortedPet.self).filter("kind == %@", PortedKind.dog.rawValue).count == 1)
        #expect(realm.objects(PortedPet.self).where { $0.optKind == .dog }.count == 1)
    }

    @Test("autoreleasepool(invoking:) runs its block and returns its result, as Realm's background-thread idiom uses it")
    func autoreleasepoolRuns() throws {
        let config = Self.configuration()
        let reader = try Realm(configuration: config)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue(label: "background").async {
            autoreleasepool {
                let realm = try! Realm(configuration: config)
                try! realm.write { realm.create(BridgedValues.self, value: ["id": 7]) }
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(autoreleasepool { 41 + 1 } == 42)
        reader.refresh()
        #expect(reader.objects(BridgedValues.self).map(\.id) == [7])
    }

    @Test("filter and index(matching:) take NSPredicate(value:) and compounds of it")
    func nsPredicate() throws {
        let realm = try Self.realm()
        try realm.write { for id in 1...3 { realm.create(BridgedValues.self, value: ["id": id]) } }
        let all = realm.objects(BridgedValues.self)
        #expect(all.filter(NSPredicate(value: true)).count == 3)
        #expect(all.filter(NSPredicate(value: false)).count == 0)
        #expect(all.index(matching: NSPredicate(value: true)) == 0)
        #expect(all.index(matching: NSPredicate(value: false)) == nil)
        let compound = NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(value: true),
            NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(value: false))])
        #expect(all.filter(compound).count == 3)
    }

    @Test("a block NSPredicate stops with a message pointing to format strings")
    func nsPredicateBlock() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try RealmPortingValueTests.realm()
            _ = realm.objects(BridgedValues.self).filter(NSPredicate(block: { _, _ in true }))
        }
        #expect(Self.stderr(result).contains("Pass the format string and its arguments instead"))
    }

    // MARK: Realm's error wording

    // Realm: RealmCollectionTypeTests (UnmanagedListTests / UnmanagedMutableSetTests) testFreeze.
    @Test("freezing an unmanaged List stops with Realm's message")
    func unmanagedListFreeze() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = List<Dog>().freeze()
        }
        #expect(Self.stderr(result).contains("This method may only be called on RLMArray instances retrieved from an RLMRealm"))
    }

    @Test("freezing an unmanaged MutableSet stops with Realm's message")
    func unmanagedSetFreeze() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = MutableSet<Dog>().freeze()
        }
        #expect(Self.stderr(result).contains("This method may only be called on RLMSet instances retrieved from an RLMRealm"))
    }

    @Test("filtering an unmanaged List stops with Realm's message")
    func unmanagedListFilter() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = List<Dog>().filter("age > 1")
        }
        #expect(Self.stderr(result).contains("This method may only be called on RLMArray instances retrieved from an RLMRealm"))
    }

    // Realm: QueryTests.m testCollectionOperatorsInSort (sorting on dogs.@count).
    @Test("sorting on a collection operator stops with Realm's message")
    func sortOnCount() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try RealmPortingValueTests.realm()
            _ = realm.objects(Person.self).sorted(byKeyPath: "dogs.@count")
        }
        #expect(Self.stderr(result).contains("Cannot sort on key path 'dogs.@count': KVC collection operators are not supported."))
    }

    // Realm: QueryTests.m testInvalidQueries and testCollectionOperatorErrors
    // (exit tests capture nothing, so one test per query).
    @Test("@count on a property that is not a collection stops with Realm's message")
    func countOnScalar() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try RealmPortingValueTests.realm().objects(Dog.self).filter("age.@count > 5")
        }
        #expect(Self.stderr(result).contains(
            "Invalid keypath 'age.@count': Property 'Dog.age' is not a link or collection and can only appear at the end of a keypath."))
    }

    @Test("@count alone stops with Realm's message")
    func countAlone() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try RealmPortingValueTests.realm().objects(Dog.self).filter("@count == 0")
        }
        #expect(Self.stderr(result).contains("Invalid keypath '@count': collection operation '@count' must be applied to a collection"))
    }

    @Test("@count followed by more key path stops with Realm's message")
    func countNotLast() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try RealmPortingValueTests.realm().objects(Dog.self).filter("tags.@count.foo.bar != 0")
        }
        #expect(Self.stderr(result).contains("Invalid keypath 'tags.@count.foo.bar': @count must appear at the end of a keypath."))
    }

    @Test("@count compared with a string stops with Realm's message")
    func countWithString() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try RealmPortingValueTests.realm().objects(Dog.self).filter("tags.@count != 'Hello'")
        }
        #expect(Self.stderr(result).contains("@count can only be compared with a numeric value"))
    }
}
