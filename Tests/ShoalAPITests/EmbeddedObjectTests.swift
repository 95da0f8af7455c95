import Foundation
import Shoal
import ShoalTestSupport
import Testing

final class EmbGeo: EmbeddedObject {
    @Persisted var lat = 0.0
}

final class EmbAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
    @Persisted var geo: EmbGeo?
    @Persisted(originProperty: "home") var residents: LinkingObjects<EmbContact>
}

final class EmbContact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var home: EmbAddress?
    @Persisted var others: List<EmbAddress>
    @Persisted var byLabel: Map<String, EmbAddress?>
}

/// A class without a primary key that a contact-like parent links to (for
/// nested creation under an update policy).
final class EmbNote: Object {
    @Persisted var text = ""
}

final class EmbNoted: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var note: EmbNote?
}

/// `EmbeddedObject`: ownership, cascade deletion, creation from nested
/// values, queries through the parent, persistence, and Realm's refusals.
@Suite struct EmbeddedObjectTests {
    static let types: [Object.Type] = [EmbContact.self, EmbAddress.self, EmbGeo.self, EmbNote.self, EmbNoted.self]

    static func open(_ url: URL? = nil) throws -> Realm {
        var config = url.map { Realm.Configuration(fileURL: $0) } ?? Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = types
        return try Realm(configuration: config)
    }

    /// How many embedded objects of a class exist, read through the schema-level dynamic API.
    static func count(_ realm: Realm, _ className: String) -> Int {
        realm.objects(EmbContact.self).reduce(0) { sum, contact in
            let addresses = [contact.home].compactMap { $0 } + Array(contact.others) + contact.byLabel.values.compactMap { $0 }
            return sum + (className == "EmbAddress" ? addresses.count : addresses.compactMap(\.geo).count)
        }
    }

    @Test("the schema marks embedded classes")
    func schema() throws {
        let realm = try Self.open()
        #expect(realm.schema["EmbAddress"]?.isEmbedded == true)
        #expect(realm.schema["EmbContact"]?.isEmbedded == false)
    }

    // Follows Realm's ObjectCreationTests.testCreateEmbeddedWithDictionary.
    @Test("create builds embedded objects from nested dictionaries and arrays, with their owners as linking objects")
    func createFromDictionaries() throws {
        let realm = try Self.open()
        let contact = try realm.write {
            realm.create(EmbContact.self, value: [
                "id": 1, "home": ["street": "Main", "city": "Oslo", "geo": [59.9]] as [String: Any],
                "others": [["street": "A", "city": "Bergen"], ["street": "B", "city": "Lima"]],
                "byLabel": ["work": ["city": "Rome"]],
            ] as [String: Any])
        }
        #expect(contact.home?.city == "Oslo" && contact.home?.geo?.lat == 59.9)
        #expect(contact.others.map(\.city) == ["Bergen", "Lima"])
        #expect(contact.byLabel["work"]??.city == "Rome")
        #expect(contact.home?.residents.first?.id == 1)
        #expect(contact.home?.realm != nil && contact.home?.isInvalidated == false)
    }

    // Follows Realm's ObjectCreationTests.testCreateEmbeddedWithUnmanagedObjects and
    // testCreateEmbeddedFromManagedObjectInSameRealm.
    @Test("create copies embedded values given as unmanaged or managed objects; the source is left as it was")
    func createCopies() throws {
        let realm = try Self.open()
        let source = EmbContact()
        source.id = 1
        source.home = EmbAddress(value: ["city": "Oslo"])
        source.others.append(EmbAddress(value: ["city": "Bergen"]))
        let first = try realm.write { realm.create(EmbContact.self, value: source) }
        #expect(source.realm == nil && source.home?.realm == nil && source.others[0].realm == nil)
        #expect(first.home?.city == "Oslo" && first.others.map(\.city) == ["Bergen"])
        let copy = try realm.write { realm.create(EmbContact.self, value: ["id": 2, "home": first.home as Any, "others": first.others] as [String: Any]) }
        #expect(copy.home?.city == "Oslo" && !(copy.home!.isSameObject(as: first.home)))
        #expect(first.home?.city == "Oslo" && first.others.count == 1)
        #expect(copy.others.map(\.city) == ["Bergen"] && !copy.others[0].isSameObject(as: first.others[0]))
    }

    // Follows Realm's ObjectCreationTests.testAddEmbedded.
    @Test("adding a parent adds its unmanaged embedded objects: they become managed")
    func addAdopts() throws {
        let realm = try Self.open()
        let contact = EmbContact()
        let home = EmbAddress(value: ["city": "Oslo"])
        let other = EmbAddress(value: ["city": "Lima"])
        contact.home = home
        contact.others.append(other)
        try realm.write { realm.add(contact) }
        #expect(home.realm != nil && other.realm != nil)
        #expect(contact.home!.isSameObject(as: home) && contact.others[0].isSameObject(as: other))
    }

    @Test("an unmanaged owner made from nested dictionaries holds unmanaged embedded objects, added with it")
    func initFromDictionaries() throws {
        let contact = EmbContact(value: ["id": 3, "home": ["city": "Oslo"], "others": [["city": "Lima"]], "byLabel": ["w": ["city": "Rome"]]] as [String: Any])
        #expect(contact.home?.city == "Oslo" && contact.home?.realm == nil && contact.others.first?.city == "Lima")
        let realm = try Self.open()
        try realm.write { realm.add(contact) }
        #expect(contact.home?.realm != nil && contact.others.first?.realm != nil && contact.byLabel["w"]??.city == "Rome")
        #expect(realm.objects(EmbContact.self).filter("home.city == 'Oslo'").count == 1)
    }

    // Follows Realm's ObjectAccessorTests.testSetEmbeddedLink.
    @Test("reassigning a link deletes the embedded object it pointed at; setting the same one again does nothing")
    func reassignDeletesOld() throws {
        let realm = try Self.open()
        realm.beginWrite()
        let parent = realm.create(EmbContact.self, value: ["id": 1])
        let child1 = EmbAddress()
        parent.home = child1
        #expect(child1.realm != nil)
        parent.home = child1
        #expect(!child1.isInvalidated)
        let child2 = EmbAddress(value: ["city": "Lima"])
        parent.home = child2
        #expect(child1.isInvalidated && !child2.isInvalidated)
        parent.home = nil
        #expect(child2.isInvalidated)
        realm.cancelWrite()
    }

    @Test("removing from a List or Map, replacing an element and clearing delete the embedded objects they held")
    func collectionRemovalDeletes() throws {
        let realm = try Self.open()
        let contact = try realm.write {
            realm.create(EmbContact.self, value: [
                "id": 1, "others": [["city": "A"], ["city": "B"], ["city": "C"]],
                "byLabel": ["x": ["city": "X"], "y": ["city": "Y"]],
            ] as [String: Any])
        }
        let (a, b, c) = (contact.others[0], contact.others[1], contact.others[2])
        let (x, y) = (contact.byLabel["x"]!!, contact.byLabel["y"]!!)
        try realm.write { contact.others.remove(at: 0) }
        #expect(a.isInvalidated && !b.isInvalidated)
        try realm.write { contact.others[0] = EmbAddress(value: ["city": "B2"]) }
        #expect(b.isInvalidated && contact.others.map(\.city) == ["B2", "C"])
        try realm.write { contact.byLabel["x"] = EmbAddress(value: ["city": "X2"]) }
        #expect(x.isInvalidated && contact.byLabel["x"]??.city == "X2")
        try realm.write { contact.byLabel.removeObject(for: "y") }
        #expect(y.isInvalidated)
        try realm.write { contact.others.removeAll() }
        #expect(c.isInvalidated && Self.count(realm, "EmbAddress") == 1)
    }

    @Test("swapping and moving embedded objects in a List keeps them alive")
    func swapAndMove() throws {
        let realm = try Self.open()
        let contact = try realm.write {
            realm.create(EmbContact.self, value: ["id": 1, "others": [["city": "A"], ["city": "B"], ["city": "C"]]] as [String: Any])
        }
        let kept = Array(contact.others)
        try realm.write { contact.others.swapAt(0, 2) }
        #expect(contact.others.map(\.city) == ["C", "B", "A"])
        try realm.write { contact.others.move(from: 0, to: 1) }
        #expect(contact.others.map(\.city) == ["B", "C", "A"])
        #expect(kept.allSatisfy { !$0.isInvalidated })
    }

    @Test("deleting the parent deletes its embedded objects, nested ones too; deleting an embedded object clears its owner's link")
    func cascadeOnDelete() throws {
        let realm = try Self.open()
        let contact = try realm.write {
            realm.create(EmbContact.self, value: [
                "id": 1, "home": ["city": "Oslo", "geo": ["lat": 1.5]] as [String: Any],
                "others": [["city": "A"]], "byLabel": ["w": ["city": "W"]],
            ] as [String: Any])
        }
        let other = try realm.write { realm.create(EmbContact.self, value: ["id": 2, "home": ["city": "Lima"]] as [String: Any]) }
        let held = [contact.home!, contact.home!.geo!, contact.others[0], contact.byLabel["w"]!!] as [Object]
        try realm.write { realm.delete(other.home!) }
        #expect(other.home == nil)
        try realm.write { realm.delete(contact) }
        let allDeleted = held.allSatisfy { $0.isInvalidated }
        #expect(allDeleted)
        #expect(Self.count(realm, "EmbAddress") == 0)
    }

    static func stderr(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    // Follows Realm's ObjectAccessorTests.testSetEmbeddedLink: an embedded object has one owner.
    @Test("setting a link to a managed embedded object that has an owner stops with Realm's message")
    func secondOwnerLinkRefused() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try EmbeddedObjectTests.open()
            realm.beginWrite()
            let first = realm.create(EmbContact.self, value: ["id": 1, "home": ["city": "Oslo"]] as [String: Any])
            let second = realm.create(EmbContact.self, value: ["id": 2])
            second.home = first.home
        }
        #expect(Self.stderr(result).contains("Can't set link to existing managed embedded object"))
    }

    // Follows Realm's ListTests.testAppendEmbedded.
    @Test("appending a managed embedded object that has an owner to a List stops with Realm's message")
    func secondOwnerListRefused() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try EmbeddedObjectTests.open()
            realm.beginWrite()
            let first = realm.create(EmbContact.self, value: ["id": 1, "others": [["city": "Oslo"]]] as [String: Any])
            first.others.append(first.others[0])
        }
        #expect(Self.stderr(result).contains("Cannot add an existing managed embedded object to a List."))
    }

    // Follows Realm's MapTests.testSetEmbedded.
    @Test("putting a managed embedded object that has an owner in a Map stops with Realm's message")
    func secondOwnerMapRefused() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try EmbeddedObjectTests.open()
            realm.beginWrite()
            let first = realm.create(EmbContact.self, value: ["id": 1, "home": ["city": "Oslo"]] as [String: Any])
            first.byLabel["k"] = first.home
        }
        #expect(Self.stderr(result).contains("Cannot add an existing managed embedded object to a Dictionary."))
    }

    // Realm refuses these at compile time (an EmbeddedObject is neither added nor
    // fetched on its own; Shoal's unavailable overloads do the same); called
    // through `Object.Type`, Shoal stops at run time.
    @Test("add of an embedded object through Object stops with Realm's message")
    func addRefused() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try EmbeddedObjectTests.open()
            let type: Object.Type = EmbAddress.self
            realm.beginWrite()
            realm.add(type.init(value: [:]))
        }
        #expect(Self.stderr(result).contains("Embedded objects cannot be created directly"))
    }

    @Test("create of an embedded class through Object.Type stops with Realm's message")
    func createRefused() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try EmbeddedObjectTests.open()
            let type: Object.Type = EmbAddress.self
            realm.beginWrite()
            _ = realm.create(type)
        }
        #expect(Self.stderr(result).contains("Embedded objects cannot be created directly"))
    }

    @Test("objects of an embedded class through Object.Type stops")
    func objectsRefused() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try EmbeddedObjectTests.open()
            let type: Object.Type = EmbAddress.self
            _ = realm.objects(type).count
        }
        #expect(Self.stderr(result).contains("Embedded objects cannot be queried directly"))
    }

    @Test("parents are queried and sorted through embedded key paths")
    func queries() throws {
        let realm = try Self.open()
        try realm.write {
            realm.create(EmbContact.self, value: ["id": 1, "name": "Ann", "home": ["city": "Oslo"], "others": [["city": "Lima"]]] as [String: Any])
            realm.create(EmbContact.self, value: ["id": 2, "name": "Bob", "home": ["city": "Bergen"], "others": [["city": "Rome"], ["city": "Oslo"]]] as [String: Any])
        }
        let contacts = realm.objects(EmbContact.self)
        #expect(contacts.filter("home.city == 'Oslo'").map(\.name) == ["Ann"])
        #expect(contacts.filter("ANY others.city == 'Oslo'").map(\.name) == ["Bob"])
        #expect(contacts.where { $0.home.city == "Bergen" }.map(\.name) == ["Bob"])
        #expect(contacts.sorted(byKeyPath: "home.city").map(\.name) == ["Bob", "Ann"])
    }

    // The done-when: a program using EmbeddedObject in a List and as a
    // single link survives reopen and cascade deletion (the recovery tool's dump
    // of the same database is in ShoalCLITests' EmbeddedDumpTests).
    @Test("embedded objects in a link, a List and a Map survive reopening, compaction and cascade deletion")
    func persistence() throws {
        let url = temporaryDatabaseURL("embedded")
        do {
            let realm = try Self.open(url)
            try realm.write {
                realm.create(EmbContact.self, value: [
                    "id": 1, "home": ["city": "Oslo", "geo": [2.5]] as [String: Any], "others": [["city": "A"], ["city": "B"]],
                    "byLabel": ["w": ["city": "W"]],
                ] as [String: Any])
                realm.create(EmbContact.self, value: ["id": 2, "home": ["city": "Lima"]] as [String: Any])
            }
            let one = realm.object(ofType: EmbContact.self, forPrimaryKey: 1)!
            try realm.write { one.others.remove(at: 0) }
        }
        do {
            let realm = try Self.open(url)
            #expect(realm.schema["EmbAddress"]?.isEmbedded == true)
            let one = try #require(realm.object(ofType: EmbContact.self, forPrimaryKey: 1))
            #expect(one.home?.city == "Oslo" && one.home?.geo?.lat == 2.5 && one.others.map(\.city) == ["B"])
            #expect(one.byLabel["w"]??.city == "W" && one.home?.residents.first?.id == 1)
            try realm.write { realm.delete(realm.object(ofType: EmbContact.self, forPrimaryKey: 2)!) }
            try realm.compact()
        }
        let realm = try Self.open(url)
        #expect(realm.objects(EmbContact.self).map(\.id) == [1])
        #expect(Self.count(realm, "EmbAddress") == 3 && Self.count(realm, "EmbGeo") == 1)
        #expect(realm.objects(EmbContact.self).filter("home.city == 'Lima'").isEmpty)
    }

    // Realm's update semantics: a nested value for a class without a primary key
    // is a new object under every policy; the top-level class must have one.
    @Test("update policies: a nested dictionary for a class without a primary key creates a new object, and .all replaces embedded objects")
    func updatePolicies() throws {
        let realm = try Self.open()
        let noted = try realm.write { realm.create(EmbNoted.self, value: ["id": 1, "note": ["text": "a"]] as [String: Any]) }
        let firstNote = try #require(noted.note)
        try realm.write { realm.create(EmbNoted.self, value: ["id": 1, "note": ["text": "b"]] as [String: Any], update: .modified) }
        #expect(noted.note?.text == "b" && !noted.note!.isSameObject(as: firstNote))
        #expect(realm.objects(EmbNote.self).map(\.text).sorted() == ["a", "b"])
        try realm.write { realm.create(EmbNoted.self, value: ["id": 1, "note": ["text": "c"]] as [String: Any], update: .all) }
        #expect(realm.objects(EmbNote.self).count == 3)

        let contact = try realm.write { realm.create(EmbContact.self, value: ["id": 5, "home": ["city": "Oslo"]] as [String: Any]) }
        let oldHome = try #require(contact.home)
        let replacement = EmbContact(value: ["id": 5, "home": EmbAddress(value: ["city": "Lima"])])
        try realm.write { realm.add(replacement, update: .all) }
        #expect(oldHome.isInvalidated && contact.home?.city == "Lima")
    }

    // Follows Realm's ObjectCreationTests.testAddAndUpdateChangedEmbedded.
    @Test("add with .modified updates the owner's embedded objects in place: old accessors stay valid and the given objects become them")
    func modifiedUpdatesInPlace() throws {
        let realm = try Self.open()
        let first = EmbContact(value: ["id": 1, "home": ["city": "Oslo", "geo": [1.0]], "others": [["city": "A"], ["city": "B"]]] as [String: Any])
        try realm.write { realm.add(first) }
        let (oldHome, oldGeo, oldA, oldB) = (first.home!, first.home!.geo!, first.others[0], first.others[1])
        let second = EmbContact(value: ["id": 1, "home": ["city": "Lima", "geo": [2.0]], "others": [["city": "C"]]] as [String: Any])
        let (newHome, newOther) = (second.home!, second.others[0])
        try realm.write { realm.add(second, update: .modified) }
        #expect(!oldHome.isInvalidated && oldHome.city == "Lima" && oldGeo.lat == 2.0)
        #expect(newHome.realm != nil && newHome.isSameObject(as: oldHome) && newOther.isSameObject(as: oldA))
        #expect(oldA.city == "C" && oldB.isInvalidated && first.others.map(\.city) == ["C"])
        #expect(Self.count(realm, "EmbAddress") == 2)
    }

    // Follows Realm's ObjectCreationTests.testAddAndUpdateEmbedded.
    @Test("add with .all replaces the owner's embedded objects: the old ones are deleted")
    func allReplaces() throws {
        let realm = try Self.open()
        let first = EmbContact(value: ["id": 1, "home": ["city": "Oslo"], "others": [["city": "A"]]] as [String: Any])
        try realm.write { realm.add(first) }
        let (oldHome, oldA) = (first.home!, first.others[0])
        let second = EmbContact(value: ["id": 1, "home": ["city": "Lima"], "others": [["city": "C"]]] as [String: Any])
        try realm.write { realm.add(second, update: .all) }
        #expect(oldHome.isInvalidated && oldA.isInvalidated)
        #expect(second.home?.city == "Lima" && first.home?.city == "Lima" && first.others.map(\.city) == ["C"])
    }
}
