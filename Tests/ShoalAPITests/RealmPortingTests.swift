import Foundation
import Shoal
import Testing

// Models as Realm's ModernTestObjects.swift declares them.

/// Realm's `ModernCustomInitializerObject`: a designated initializer of its
/// own beside `required override init()`.
final class ModernCustomInitializerObject: Object {
    @Persisted var stringCol: String

    init(stringVal: String) {
        stringCol = stringVal
        super.init()
    }

    required override init() {
        stringCol = ""
        super.init()
    }
}

/// Realm's `ModernConvenienceInitializerObject`.
final class ModernConvenienceInitializerObject: Object {
    @Persisted var stringCol = ""

    convenience init(stringCol: String) {
        self.init()
        self.stringCol = stringCol
    }
}

/// A model that overrides `init()` without `required`, as Realm allows.
final class OverridingInitObject: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var created = Date(timeIntervalSince1970: 0)
    nonisolated(unsafe) static var initCalls = 0   // read by one test only

    override init() {
        super.init()
        OverridingInitObject.initCalls += 1
        created = Date(timeIntervalSince1970: 1_000)
    }
}

/// A non-final model overriding `init()`, and a subclass of it.
class OverridingBase: Object {
    @Persisted var name = ""
    @Persisted var setByInit = 0

    override init() {
        super.init()
        setByInit = 7
    }
}

final class OverridingChild: OverridingBase {
    @Persisted var extra = 0
}

/// A model for the sectioned observation, as in Realm's `testObservation`.
final class PortedContact: Object {
    @Persisted var name = ""
    var firstLetter: String { String(name.prefix(1)) }
}

/// Realm programs compile and run with only the import changed: Shoal's
/// additions must not break them.
@Suite struct RealmPortingTests {
    static func realm(_ types: [Object.Type]) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: types))
    }

    // MARK: SectionedResultsChange has Realm's two cases

    // Realm: SectionedResultsTests.testObservation. The exhaustive switch over
    // `.initial` and `.update` only compiles when the enum has Realm's cases.
    @Test("an exhaustive switch over SectionedResultsChange's .initial and .update compiles and is called")
    func sectionedExhaustiveSwitch() throws {
        let realm = try Self.realm([PortedContact.self])
        try realm.write {
            for name in ["Alice", "Bob", "Carol", "Anna"] { realm.create(PortedContact.self, value: ["name": name]) }
        }
        let sectionedResults = realm.objects(PortedContact.self).sectioned(by: \.firstLetter, ascending: true)
        var seen: [String] = []
        let token = sectionedResults.observe { (changes: SectionedResultsChange) in
            switch changes {
            case .initial(let collection):
                seen.append("initial \(collection.count)")
            case .update(let collection, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete):
                seen.append("update \(collection.count) \(deletions.count) \(insertions.count) \(Array(sectionsToInsert)) \(Array(sectionsToDelete))")
            }
        }
        realm.refresh()
        try realm.write { realm.create(PortedContact.self, value: ["name": "Dan"]) }
        realm.refresh()
        #expect(seen == ["initial 3", "update 4 0 1 [3] []"])
        token.invalidate()

        let section = sectionedResults[0]
        var sectionSeen: [String] = []
        let sectionToken = section.observe { changes in
            switch changes {
            case .initial(let s): sectionSeen.append("initial \(s.count)")
            case .update(let s, _, let insertions, _, _, _): sectionSeen.append("update \(s.count) \(insertions.count)")
            }
        }
        realm.refresh()
        try realm.write { realm.create(PortedContact.self, value: ["name": "Abe"]) }
        realm.refresh()
        #expect(sectionSeen == ["initial 2", "update 3 1"])
        sectionToken.invalidate()
    }

    // Realm throws at observe for a key path that names no property
    // (ObjectTests.testObserveInvalidKeyPath's message); sectioned results
    // have no error case to report it later.
    @Test("observing sectioned results with an invalid key path stops at observe with Realm's message")
    func sectionedInvalidKeyPath() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try RealmPortingTests.realm([PortedContact.self])
            let sections = realm.objects(PortedContact.self).sectioned(by: \.firstLetter, ascending: true)
            _ = sections.observe(keyPaths: ["notAProperty"], on: nil) { _ in }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("Invalid property name: property 'notAProperty' not found in object of type 'PortedContact'"))
    }

    @Test("observing one section with an invalid key path stops at observe with Realm's message")
    func sectionInvalidKeyPath() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try RealmPortingTests.realm([PortedContact.self])
            try realm.write { realm.create(PortedContact.self, value: ["name": "Ann"]) }
            let sections = realm.objects(PortedContact.self).sectioned(by: \.firstLetter, ascending: true)
            _ = sections[0].observe(keyPaths: ["nope"], on: nil) { _ in }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("Invalid property name: property 'nope' not found in object of type 'PortedContact'"))
    }

    // Every other change enum Shoal mirrors, switched over with Realm's cases only.
    @Test("exhaustive switches over Realm's cases of the other change enums and policies compile")
    func otherEnumsHaveRealmsCases() throws {
        func collection(_ change: RealmCollectionChange<Results<PortedContact>>) -> String {
            switch change {
            case .initial: "initial"
            case .update: "update"
            case .error: "error"
            }
        }
        func object(_ change: ObjectChange<PortedContact>) -> String {
            switch change {
            case .error: "error"
            case .change: "change"
            case .deleted: "deleted"
            }
        }
        func map(_ change: RealmMapChange<Map<String, Int>>) -> String {
            switch change {
            case .initial: "initial"
            case .update: "update"
            case .error: "error"
            }
        }
        func policy(_ policy: Realm.UpdatePolicy) -> String {
            switch policy {
            case .error: "error"
            case .modified: "modified"
            case .all: "all"
            }
        }
        func notification(_ notification: Realm.Notification) -> String {
            switch notification {
            case .didChange: "didChange"
            case .refreshRequired: "refreshRequired"
            }
        }
        let realm = try Self.realm([PortedContact.self])
        #expect(collection(.initial(realm.objects(PortedContact.self))) == "initial")
        #expect(object(.deleted) == "deleted")
        #expect(policy(.modified) == "modified" && notification(.didChange) == "didChange")
        struct Failure: Error {}
        #expect(map(.error(Failure())) == "error")
    }

    // MARK: Object.init() is not required

    // Realm: ModernObjectTests.testObjectSchemaForObjectWithConvenienceInitializer.
    @Test("an object with a convenience initializer has its schema")
    func convenienceInitializerSchema() {
        let object = ModernConvenienceInitializerObject(stringCol: "abc")
        let schema = object.objectSchema
        #expect(schema.className == "ModernConvenienceInitializerObject")
        #expect(schema.properties.map { $0.name } == ["stringCol"])
        #expect(object.stringCol == "abc")
    }

    // Realm: ResultsWithCustomInitializerTests.testValueForKey.
    @Test("objects with custom, convenience and overriding initializers are added, queried and read back")
    func customInitializersAddAndQuery() throws {
        let realm = try Self.realm([ModernCustomInitializerObject.self, ModernConvenienceInitializerObject.self,
            OverridingInitObject.self, OverridingBase.self, OverridingChild.self])
        try realm.write {
            realm.add(ModernCustomInitializerObject(stringVal: "A"))
            realm.add(ModernConvenienceInitializerObject(stringCol: "B"))
            let overriding = OverridingInitObject()
            overriding.id = "one"
            realm.add(overriding)
            realm.add(OverridingChild())
            realm.create(OverridingInitObject.self, value: ["id": "two"])
        }
        let collection = realm.objects(ModernCustomInitializerObject.self)
        #expect(collection.map { $0.stringCol } == ["A"])
        #expect(collection.value(forKey: "stringCol") as? [String] == ["A"])
        #expect(realm.objects(ModernConvenienceInitializerObject.self).filter("stringCol == 'B'").count == 1)
        let one = try #require(realm.object(ofType: OverridingInitObject.self, forPrimaryKey: "one"))
        #expect(one.created == Date(timeIntervalSince1970: 1_000))
        // `create` starts from the defaults the initializer set, as Realm's does.
        #expect(realm.object(ofType: OverridingInitObject.self, forPrimaryKey: "two")?.created == Date(timeIntervalSince1970: 1_000))
        // A managed accessor's initializer runs (its writes go nowhere, as in
        // Realm, where they reach the object before it is managed).
        let before = OverridingInitObject.initCalls
        #expect(realm.objects(OverridingInitObject.self).sorted(byKeyPath: "id").map(\.id) == ["one", "two"])
        #expect(OverridingInitObject.initCalls > before)
        let child = try #require(realm.objects(OverridingChild.self).first)
        #expect(child.setByInit == 7 && child.extra == 0)
        #expect(realm.objects(OverridingBase.self).count == 0)
    }

    @Test("init(value:) can be called on an Object.Type value")
    func initValueThroughMetatype() {
        let type: Object.Type = ModernConvenienceInitializerObject.self
        let object = type.init(value: ["stringCol": "x"])
        #expect((object as? ModernConvenienceInitializerObject)?.stringCol == "x")
    }
}
