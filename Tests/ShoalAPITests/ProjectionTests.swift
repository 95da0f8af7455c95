import Foundation
import Shoal
import Testing

// MARK: Models, as Realm's ProjectionTests.swift declares them

class AddressSwift: EmbeddedObject {
    @Persisted var city: String = ""
    @Persisted var country = ""
}

class ExtraInfo: Object {
    @Persisted var phone: PhoneInfo?
    @Persisted var email: String?
}

class PhoneInfo: Object {
    @Persisted var mobile: Mobile?
}

class Mobile: EmbeddedObject {
    @Persisted var number: String = ""
}

class CommonPerson: Object {
    @Persisted var firstName: String
    @Persisted var lastName = ""
    @Persisted var birthday: Date
    @Persisted var address: AddressSwift?
    @Persisted var extras: ExtraInfo?
    @Persisted var friends: List<CommonPerson>
    @Persisted var reviews: List<String>
    @Persisted var money: Decimal128
}

final class PersonProjection: Projection<CommonPerson> {
    @Projected(\CommonPerson.firstName) var firstName
    @Projected(\CommonPerson.lastName.localizedUppercase) var lastNameCaps
    @Projected(\CommonPerson.birthday.timeIntervalSince1970) var birthdayAsEpochtime
    @Projected(\CommonPerson.address?.city) var homeCity
    @Projected(\CommonPerson.extras?.email) var email
    @Projected(\CommonPerson.extras?.phone?.mobile?.number) var mobile
    @Projected(\CommonPerson.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
}

class SimpleObject: Object {
    @Persisted var int: Int
    @Persisted var bool: Bool
}

final class SimpleProjection: Projection<SimpleObject> {
    @Projected(\SimpleObject.int) var int
}

final class MultipleProjectionsFromOneProperty: Projection<SimpleObject> {
    @Projected(\SimpleObject.int) var int1
    @Projected(\SimpleObject.int) var int2
    @Projected(\SimpleObject.int) var int3
}

class AdvancedObject: Object {
    @Persisted(primaryKey: true) var pk: ObjectId
    @Persisted var commonArray: List<Int>
    @Persisted var objectsArray: List<SimpleObject>
    @Persisted var commonSet: MutableSet<Int>
    @Persisted var objectsSet: MutableSet<SimpleObject>
}

extension SimpleObject {
    var stringify: String {
        "\(int) - \(bool)"
    }
}

class AdvancedProjection: Projection<AdvancedObject> {
    @Projected(\AdvancedObject.commonArray.count) var arrayLen
    @Projected(\AdvancedObject.commonArray) var renamedArray
    @Projected(\AdvancedObject.objectsArray.projectTo.stringify) var projectedArray: ProjectedCollection<String>
    @Projected(\AdvancedObject.commonSet.first) var firstElement
    @Projected(\AdvancedObject.objectsSet.projectTo.bool) var projectedSet: ProjectedCollection<Bool>
}

/// Realm's `ModernAllTypesObject.ignored`: a property that is not persisted.
class IgnoringObject: Object {
    @Persisted var intCol = 0
    var ignored = 1
}

class FailedProjection: Projection<IgnoringObject> {
    @Projected(\IgnoringObject.ignored) var ignored
}

/// A root class with a primary key, for `object(ofType:forPrimaryKey:)`.
class KeyedPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var tags: List<String>
}

final class KeyedPersonProjection: Projection<KeyedPerson>, ObjectKeyIdentifiable {
    @Projected(\KeyedPerson.name) var displayName
    @Projected(\KeyedPerson.tags.count) var tagCount
}

// MARK: Tests

/// Realm's ProjectionTests, in Realm's words where Shoal behaves the same;
/// the notes say where it differs.
@Suite struct ProjectionTests {
    static let types: [ObjectBase.Type] = [
        CommonPerson.self, AddressSwift.self, ExtraInfo.self, PhoneInfo.self, Mobile.self, SimpleObject.self,
        AdvancedObject.self, IgnoringObject.self, KeyedPerson.self,
    ]

    let configuration: Realm.Configuration

    init() {
        configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: ProjectionTests.types)
    }

    init(configuration: Realm.Configuration) {
        self.configuration = configuration
    }

    func realmWithTestPath() -> Realm { try! Realm(configuration: configuration) }

    func populatedRealm() -> Realm {
        let realm = realmWithTestPath()
        try! realm.write {
            let js = realm.create(CommonPerson.self, value: ["firstName": "John",
                                                             "lastName": "Snow",
                                                             "birthday": Date(timeIntervalSince1970: 10),
                                                             "address": [
                                                                "city": "Winterfell",
                                                                "country": "Kingdom in the North"],
                                                             "extras": ["phone": ["mobile": ["number": "555-555-555"]], "email": "john@doe.com"],
                                                             "money": Decimal128("2.22")])
            let dt = realm.create(CommonPerson.self, value: ["firstName": "Daenerys",
                                                             "lastName": "Targaryen",
                                                             "birthday": Date(timeIntervalSince1970: 0),
                                                             "address": ["King's Landing", "Westeros"],
                                                             "money": Decimal128("2.22")])
            js.friends.append(dt)
            dt.friends.append(js)

            realm.create(AdvancedObject.self, value: ["pk": ObjectId.generate(),
                                                      "commonArray": [1, 2, 3],
                                                      "objectsArray": [[1, true] as [Any], [2, false]],
                                                      "commonSet": [1, 2, 3],
                                                      "objectsSet": [[1, true] as [Any], [2, false]]])
        }
        return realm
    }

    /// Runs `body` on a new thread and waits for it (Realm's `dispatchSyncNewThread`).
    func dispatchSyncNewThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }

    // MARK: Reading

    @Test func testProjectionManualInit() {
        let realm = populatedRealm()
        let johnSnow = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
        // this step will happen under the hood
        let pp = PersonProjection(projecting: johnSnow)
        #expect(pp.homeCity == "Winterfell")
        #expect(pp.birthdayAsEpochtime == Date(timeIntervalSince1970: 10).timeIntervalSince1970)
        #expect(pp.firstFriendsName.first! == "Daenerys")
    }

    @Test func testProjectionFromResult() {
        let realm = populatedRealm()
        let johnSnow: PersonProjection = realm.objects(PersonProjection.self).first!
        #expect(johnSnow.homeCity == "Winterfell")
        #expect(johnSnow.birthdayAsEpochtime == Date(timeIntervalSince1970: 10).timeIntervalSince1970)
        #expect(johnSnow.firstFriendsName.first! == "Daenerys")
    }

    @Test func testProjectionFromResultFiltered() {
        let realm = populatedRealm()
        let johnSnow: PersonProjection = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!

        #expect(johnSnow.homeCity == "Winterfell")
        #expect(johnSnow.birthdayAsEpochtime == Date(timeIntervalSince1970: 10).timeIntervalSince1970)
        #expect(johnSnow.firstFriendsName.first! == "Daenerys")
    }

    @Test func testProjectionFromResultSorted() {
        let realm = populatedRealm()
        let dany: PersonProjection = realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName").first!

        #expect(dany.homeCity == "King's Landing")
        #expect(dany.birthdayAsEpochtime == Date(timeIntervalSince1970: 0).timeIntervalSince1970)
        #expect(dany.firstFriendsName.first! == "John")
    }

    @Test func testProjectionFromResultSortedBirthday() {
        let realm = populatedRealm()
        let dany: PersonProjection = realm.objects(PersonProjection.self).sorted(byKeyPath: "birthday").first!

        #expect(dany.homeCity == "King's Landing")
        #expect(dany.birthdayAsEpochtime == Date(timeIntervalSince1970: 0).timeIntervalSince1970)
        #expect(dany.firstFriendsName.first! == "John")
    }

    @Test func testProjectionEnumeration() {
        let realm = populatedRealm()
        #expect(realm.objects(PersonProjection.self).count > 0)
        var names: [String] = []
        for proj in realm.objects(PersonProjection.self) {
            names.append(proj.firstName)
        }
        #expect(names == ["John", "Daenerys"])
    }

    @Test func testProjectionEquality() {
        let realm = populatedRealm()
        let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
        let johnDefaultInit = PersonProjection(projecting: johnObject)
        let johnMapped = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
        let notJohn = realm.objects(PersonProjection.self).filter("lastName != 'Snow'").first!

        #expect(johnMapped == johnDefaultInit)
        #expect(johnMapped != notJohn)
        #expect(Set([johnMapped, johnDefaultInit, notJohn]).count == 2)
        #expect(realm.objects(PersonProjection.self).index(of: notJohn) == 1)
    }

    @Test func testDescription() throws {
        let actual = populatedRealm().objects(PersonProjection.self).filter("lastName == 'Snow'").first!.description
        let expected = "PersonProjection<CommonPerson> <0x[0-9a-f]+> \\{\n\t\tfirstName\\(\\\\.firstName\\) = John;\n\tlastNameCaps\\(\\\\.lastName\\) = SNOW;\n\tbirthdayAsEpochtime\\(\\\\.birthday\\) = 10.0;\n\thomeCity\\(\\\\.address.city\\) = Optional\\(\"Winterfell\"\\);\n\temail\\(\\\\.extras.email\\) = Optional\\(\"john@doe.com\"\\);\n\tmobile\\(\\\\.extras.phone.mobile.number\\) = Optional\\(\"555-555-555\"\\);\n\tfirstFriendsName\\(\\\\.friends\\) = ProjectedCollection<String> \\{\n\t\\[0\\] Daenerys\n\\};\n\\}"
        let regex = try NSRegularExpression(pattern: "^" + expected + "$")
        #expect(regex.firstMatch(in: actual, range: NSRange(actual.startIndex..., in: actual)) != nil, "\(actual)")
    }

    @Test func testProjectionsRealmShouldNotBeNil() {
        #expect(populatedRealm().objects(PersonProjection.self).first!.realm != nil)
    }

    @Test func testAdvancedProjection() throws {
        let realm = populatedRealm()
        let proj = realm.objects(AdvancedProjection.self).first!

        #expect(proj.arrayLen == 3)
        #expect(proj.projectedArray.elementsEqual(["1 - true", "2 - false"]), "'\(proj.projectedArray)' should be equal to '[\"1 - true\", \"2 - false\"]'")
        #expect(proj.renamedArray.elementsEqual([1, 2, 3]))
        #expect(proj.firstElement == 1)
        #expect(proj.projectedSet.elementsEqual([true, false]), "'\(proj.projectedArray)' should be equal to '[true, false]'")
    }

    @Test func testFailedProjection() async {
        let realm = populatedRealm()
        try! realm.write { realm.create(IgnoringObject.self) }
        #expect(realm.objects(FailedProjection.self).count > 0)
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "failed", objectTypes: [IgnoringObject.self]))
            try realm.write { realm.create(IgnoringObject.self) }
            _ = realm.objects(FailedProjection.self).first
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("@Projected property 'ignored' must be a part of Realm object"))
    }

    // MARK: Writing through

    @Test("setting a projected property writes the root object; projected collection elements write their objects")
    func projectionWritesThrough() {
        let realm = populatedRealm()
        let john = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
        try! realm.write {
            john.firstName = "Jon"
            john.firstFriendsName[0] = "Dany"
        }
        let object = john.rootObject
        #expect(object.firstName == "Jon")
        #expect(object.friends[0].firstName == "Dany")
        #expect(realm.objects(CommonPerson.self).filter("firstName == 'Dany'").count == 1)
        #expect(john.firstFriendsName.index(of: "Dany") == 0)
    }

    @Test("setting a projected key path that cannot be written stops with Realm's message")
    func projectedComputedKeyPathIsNotWritable() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "ro", objectTypes: ProjectionTests.types))
            try realm.write {
                let person = realm.create(CommonPerson.self, value: ["lastName": "Snow"])
                PersonProjection(projecting: person).lastNameCaps = "STARK"
            }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("KeyPath is not writable"))
    }

    // MARK: Fetching

    @Test("object(ofType:forPrimaryKey:) gives a projection of the root object with that key")
    func objectForPrimaryKey() {
        let realm = realmWithTestPath()
        try! realm.write {
            realm.create(KeyedPerson.self, value: ["id": 1, "name": "Ann", "tags": ["a", "b"]])
            realm.create(KeyedPerson.self, value: ["id": 2, "name": "Bob"])
        }
        let ann = realm.object(ofType: KeyedPersonProjection.self, forPrimaryKey: 1)
        #expect(ann?.displayName == "Ann")
        #expect(ann?.tagCount == 2)
        #expect(realm.object(ofType: KeyedPersonProjection.self, forPrimaryKey: 3) == nil)
        let sorted = realm.objects(KeyedPersonProjection.self).sorted(byKeyPath: "name", ascending: false)
        #expect(sorted.map(\.displayName) == ["Bob", "Ann"])
        #expect(realm.objects(KeyedPersonProjection.self).filter("id > 1").map(\.displayName) == ["Bob"])
    }

    @Test("an ObjectKeyIdentifiable projection's id is its object's, whichever projection reads it")
    func projectionIdentifiers() {
        let realm = realmWithTestPath()
        try! realm.write {
            realm.create(KeyedPerson.self, value: ["id": 1, "name": "Ann"])
            realm.create(KeyedPerson.self, value: ["id": 2, "name": "Bob"])
        }
        let ann = realm.object(ofType: KeyedPersonProjection.self, forPrimaryKey: 1)!
        let annAgain = realm.objects(KeyedPersonProjection.self).filter("id == 1").first!
        let bob = realm.object(ofType: KeyedPersonProjection.self, forPrimaryKey: 2)!
        #expect(ann.id == annAgain.id)
        #expect(ann.id != bob.id)
        #expect(realm.objects(KeyedPersonProjection.self).map(\.id) == [ann.id, bob.id])
    }

    // MARK: Key path names

    @Test("_name(for:) names the root properties a key path reads, of an object or of a projection")
    func keyPathNames() {
        #expect(_name(for: \CommonPerson.address?.city) == "address.city")
        #expect(_name(for: \CommonPerson.friends) == "friends")
        #expect(_name(for: \IgnoringObject.ignored) == "")
        #expect(_name(for: \PersonProjection.homeCity) == "address.city")
        #expect(_name(for: \PersonProjection.mobile) == "extras.phone.mobile.number")
        #expect(_name(for: \PersonProjection.firstFriendsName) == "friends")
    }

    // MARK: Notifications

    @Test func testObserveKeyPath() {
        let realm = populatedRealm()
        let johnProjection = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!

        var fulfilled = 0
        let token = johnProjection.observe(keyPaths: ["lastName"], on: nil) { _ in
            fulfilled += 1
        }
        let configuration = self.configuration
        dispatchSyncNewThread { @Sendable in
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
                johnObject.firstName = "Jon"   // not observed
            }
        }
        realm.refresh()
        #expect(fulfilled == 0)
        dispatchSyncNewThread { @Sendable in
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
                johnObject.lastName = "Targaryen"
            }
        }
        realm.refresh()
        #expect(fulfilled == 1)
        token.invalidate()
    }

    @Test func testObserveNestedProjection() {
        let realm = populatedRealm()
        let johnProjection = realm.objects(PersonProjection.self).first!
        let configuration = self.configuration

        var seen: [String] = []
        let token = johnProjection.observe(keyPaths: [\PersonProjection.mobile]) { changes in
            if case .change(_, let propertyChange) = changes {
                #expect(propertyChange[0].name == "mobile")
                #expect((propertyChange[0].newValue as? String) == "529-345-678")
                seen.append("mobile")
            } else {
                Issue.record("expected .change, got \(changes)")
            }
        }
        dispatchSyncNewThread { @Sendable in
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
                johnObject.extras?.phone?.mobile?.number = "529-345-678"
            }
        }
        realm.refresh()
        #expect(seen == ["mobile"])
        token.invalidate()

        let token2 = johnProjection.observe { changes in
            if case .change(_, let propertyChange) = changes {
                #expect(propertyChange[0].name == "email")
                #expect(propertyChange[0].newValue as? String == "joe@realm.com")
                seen.append("email")
            } else {
                Issue.record("expected .change, got \(changes)")
            }
        }
        dispatchSyncNewThread { @Sendable in
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
                johnObject.extras?.email = "joe@realm.com"
            }
        }
        realm.refresh()
        #expect(seen == ["mobile", "email"])
        token2.invalidate()

        let token3 = johnProjection.observe { changes in
            if case .change(_, let propertyChange) = changes {
                let change = propertyChange[0]
                #expect(change.name == "homeCity")
                #expect(change.newValue as? String == "Barranquilla")
                seen.append("homeCity")
            } else {
                Issue.record("expected .change, got \(changes)")
            }
        }
        dispatchSyncNewThread { @Sendable in
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
                johnObject.address?.city = "Barranquilla"
            }
        }
        realm.refresh()
        #expect(seen == ["mobile", "email", "homeCity"])
        token3.invalidate()
    }

    @Test func testObserveComputedChange() throws {
        let realm = populatedRealm()
        let johnProjection = realm.objects(PersonProjection.self).first!

        #expect(johnProjection.lastNameCaps == "SNOW")

        var fulfilled = 0
        let token = johnProjection.observe(keyPaths: [\PersonProjection.lastNameCaps]) { chg in
            if case let .change(_, change) = chg {
                fulfilled += 1
                guard let value = change.first else {
                    Issue.record("Change should contain PropertyChange")
                    return
                }
                #expect(value.name == "lastNameCaps")
                #expect(value.oldValue as? String == "SNOW")
                #expect(value.newValue as? String == "ALI")
            }
        }

        // Wait for the notifier to be registered before we do the write
        realm.refresh()

        let configuration = self.configuration
        dispatchSyncNewThread { @Sendable in
            let realm = try! Realm(configuration: configuration)
            let johnObject = realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
            try! realm.write {
                johnObject.lastName = "Ali"
            }
        }
        realm.refresh()
        #expect(fulfilled == 1)
        token.invalidate()
    }

    @Test func testObserveMultipleProjectionsFromOneProperty() {
        let realm = realmWithTestPath()
        try! realm.write {
            realm.create(SimpleObject.self, value: [1, false])
        }
        let projection = realm.objects(MultipleProjectionsFromOneProperty.self).first!

        var fulfilled = 0
        let token = projection.observe { c in
            if case let .change(_, change) = c {
                fulfilled += 1
                #expect(change.count == 3)
                for (i, prop) in change.enumerated() {
                    #expect(prop.name == "int\(i + 1)")
                    #expect(prop.oldValue as? Int == 1)
                    #expect(prop.newValue as? Int == 2)
                }
            }
        }

        try! realm.write {}

        let configuration = self.configuration
        dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                realm.objects(SimpleObject.self).first!.int = 2
            }
        }
        realm.refresh()
        #expect(fulfilled == 1)
        token.invalidate()
    }

    @Test("a projection's observer ignores properties it does not project; key paths may name projected properties")
    func observeFiltersToProjectedProperties() {
        let realm = populatedRealm()
        let john = realm.objects(PersonProjection.self).first!
        var names: [[String]] = []
        let all = john.observe { change in
            if case .change(_, let properties) = change { names.append(properties.map(\.name)) }
        }
        var byLabel: [[String]] = []
        let labelled = john.observe(keyPaths: ["lastNameCaps", "firstFriendsName"]) { change in
            if case .change(_, let properties) = change { byLabel.append(properties.map(\.name)) }
        }
        try! realm.write { john.rootObject.money = Decimal128(5) }   // not projected
        realm.refresh()
        #expect(names.isEmpty)
        try! realm.write { john.rootObject.lastName = "Stark" }
        realm.refresh()
        try! realm.write { john.rootObject.friends[0].firstName = "Dany" }   // an element's projected property
        realm.refresh()
        try! realm.write { john.rootObject.friends[0].lastName = "T." }      // an element's other property
        realm.refresh()
        #expect(names == [["lastNameCaps"], ["firstFriendsName"]])
        #expect(byLabel == [["lastNameCaps"], ["firstFriendsName"]])
        all.invalidate()
        labelled.invalidate()
    }

    @Test("a projection observed through a superclass-typed reference reports its own class's properties")
    func observeThroughBaseClassReference() {
        let realm = realmWithTestPath()
        try! realm.write { realm.create(SimpleObject.self, value: [1, false]) }
        let base: Projection<SimpleObject> = realm.objects(SimpleProjection.self).first!
        var names: [[String]] = []
        let token = base.observe { change in
            if case .change(let projection, let properties) = change {
                #expect(projection is SimpleProjection)
                names.append(properties.map(\.name))
            }
        }
        try! realm.write { base.rootObject.bool = true }   // not projected by SimpleProjection
        realm.refresh()
        try! realm.write { base.rootObject.int = 2 }
        realm.refresh()
        #expect(names == [["int"]])
        #expect(base.description.contains("int(\\.int) = 2;"))
        token.invalidate()
    }

    @Test("deleting the projected object reports .deleted")
    func observeDeletion() {
        let realm = populatedRealm()
        let projection = realm.objects(SimpleProjection.self).first!
        var deleted = false
        let token = projection.observe { change in
            if case .deleted = change { deleted = true }
        }
        try! realm.write { realm.delete(projection.rootObject) }
        realm.refresh()
        #expect(deleted)
        #expect(projection.isInvalidated)
        token.invalidate()
    }

    @Test("Results of projections report insertions and modifications, filtered by root key paths")
    func observeResultsOfProjections() {
        let realm = populatedRealm()
        let results = realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName")
        var changes: [String] = []
        let token = results.observe(keyPaths: ["firstName"]) { change in
            switch change {
            case .initial(let people): changes.append("initial \(people.map(\.firstName))")
            case .update(let people, let deletions, let insertions, let modifications):
                changes.append("update \(people.map(\.firstName)) \(deletions) \(insertions) \(modifications)")
            case .error(let error): Issue.record("\(error)")
            }
        }
        realm.refresh()
        try! realm.write { realm.create(CommonPerson.self, value: ["firstName": "Arya"]) }
        realm.refresh()
        try! realm.write { results[2].rootObject.lastName = "S." }   // not in the key paths
        realm.refresh()
        try! realm.write { results[2].firstName = "Jon" }
        realm.refresh()
        #expect(changes == [
            "initial [\"Daenerys\", \"John\"]",
            "update [\"Arya\", \"Daenerys\", \"John\"] [] [0] []",
            "update [\"Arya\", \"Daenerys\", \"Jon\"] [] [] [2]",
        ])
        token.invalidate()
    }

    @Test("a projected collection reports the changes of the collection it maps")
    func observeProjectedCollection() {
        let realm = populatedRealm()
        let john = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
        var seen: [String] = []
        let token = john.firstFriendsName.observe { change in
            switch change {
            case .initial(let names): seen.append("initial \(Array(names))")
            case .update(let names, _, let insertions, _): seen.append("update \(Array(names)) \(insertions)")
            case .error(let error): Issue.record("\(error)")
            }
        }
        realm.refresh()
        try! realm.write { john.rootObject.friends.append(CommonPerson(value: ["firstName": "Sam"])) }
        realm.refresh()
        #expect(seen == ["initial [\"Daenerys\"]", "update [\"Daenerys\", \"Sam\"] [1]"])
        token.invalidate()
    }

    @Test("a projected collection freezes, thaws, crosses threads by reference and finds objects by predicate")
    func projectedCollectionThreadConfinement() {
        let realm = populatedRealm()
        let names = realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!.firstFriendsName
        let frozen = names.freeze()
        #expect(!names.isFrozen && frozen.isFrozen && frozen.realm != nil && !frozen.isInvalidated)
        try! realm.write { names[0] = "Dany" }
        #expect(Array(frozen) == ["Daenerys"])
        #expect(Array(frozen.thaw()!) == ["Dany"])
        #expect(names.index(matching: NSPredicate(value: true)) == 0)
        #expect(names.index(of: "Nobody") == nil)

        let reference = ThreadSafeReference(to: names)
        let configuration = self.configuration
        nonisolated(unsafe) var resolved: [String] = []
        dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            resolved = Array(realm.resolve(reference)!)
        }
        #expect(resolved == ["Dany"])
    }

    // On the main actor, as Realm's test: the test's Realm is used after each await.
    @MainActor
    @Test func testObserveOnActor() async throws {
        let projection = simpleProjection()
        let recorder = ChangeRecorder()
        let block = { @Sendable (actor: isolated ChangeRecorder, change: ObjectChange<SimpleProjection>) in
            guard case let .change(changed, properties) = change else {
                Issue.record("expected .change but got \(change)")
                return
            }
            guard properties.count == 1 else {
                Issue.record("expected one property but got \(properties)")
                return
            }
            let prop = properties[0]
            #expect(prop.name == "int")
            #expect(prop.oldValue as? Int == 0)
            #expect(prop.newValue as? Int == 1)
            // As in Realm, the projection is one of the actor's Realm: live.
            #expect(!changed.isFrozen)
            actor.keep(changed)
            actor.fulfill()
        }
        let tokens = await [
            projection.observe(keyPaths: ["int"], on: recorder, block),
            projection.observe(keyPaths: [\.int], on: recorder, block),
        ]

        // should not produce notification
        try projection.realm!.write {
            projection.rootObject.bool = true
        }
        try projection.realm!.write {
            projection.int = 1
        }
        for _ in 0..<200 where await recorder.count < 2 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(await recorder.count == 2)
        tokens.forEach { $0.invalidate() }

        // The projections delivered follow later commits once the actor's
        // Realm refreshes: they are live there, not frozen at the change.
        try projection.realm!.write { projection.rootObject.bool = false }
        #expect(await recorder.keptBools() == [false, false])
    }

    // MARK: Frozen Objects

    func simpleProjection() -> SimpleProjection {
        let realm = realmWithTestPath()
        var obj: SimpleObject!
        try! realm.write {
            obj = realm.create(SimpleObject.self)
        }
        return SimpleProjection(projecting: obj)
    }

    @Test func testIsFrozen() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        #expect(!projection.isFrozen)
        #expect(frozen.isFrozen)
    }

    // Realm also asserts that the live and the frozen projection differ;
    // Shoal's object equality ignores frozenness (see Projection's note).
    @Test func testFreezingFrozenObjectReturnsSelf() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        #expect(!(projection.freeze() === frozen))
        #expect(frozen == frozen.freeze())
    }

    @Test func testFreezingDeletedObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let projection = ProjectionTests().simpleProjection()
            let object = projection.rootObject
            try! projection.realm!.write({
                projection.realm!.delete(object)
            })
            _ = projection.freeze()
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("Object has been deleted or invalidated."))
    }

    @Test func testAccessFrozenObjectFromDifferentThread() {
        let projection = simpleProjection()
        nonisolated(unsafe) let frozen = projection.freeze()
        nonisolated(unsafe) var read = -1
        dispatchSyncNewThread {
            read = frozen.int
        }
        #expect(read == 0)
    }

    @Test func testObserveFrozenObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let frozen = ProjectionTests().simpleProjection().freeze()
            _ = frozen.observe { _ in }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("Frozen Realms do not change and do not have change notifications."))
    }

    @Test func testFrozenObjectEquality() {
        let projectionA = simpleProjection()
        let frozenA1 = projectionA.freeze()
        let frozenA2 = projectionA.freeze()
        #expect(frozenA1 == frozenA2)
        let projectionB = simpleProjection()
        let frozenB = projectionB.freeze()
        #expect(frozenA1 != frozenB)
    }

    @Test func testFreezeInsideWriteTransaction() {
        let realm = realmWithTestPath()
        var object: SimpleObject!
        var projection: SimpleProjection!
        try! realm.write {
            object = realm.create(SimpleObject.self)
            projection = SimpleProjection(projecting: object)
        }
        try! realm.write {
            object.int = 2
            // Frozen objects have the value of the object at the start of the transaction
            #expect(projection.freeze().int == 0)
        }
    }

    @Test func testThaw() {
        let frozen = simpleProjection().freeze()
        #expect(frozen.isFrozen)
        let live = frozen.thaw()!
        #expect(!live.isFrozen)
        try! live.realm!.write {
            live.int = 2
        }
        #expect(live.int != frozen.int)
    }

    @Test func testThawDeleted() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        let realm = realmWithTestPath()

        #expect(frozen.isFrozen)
        try! realm.write {
            realm.deleteAll()
        }
        let thawed = frozen.thaw()
        #expect(thawed == nil, "Thaw should return nil when object was deleted")
    }

    @Test func testThawPreviousVersion() {
        let projection = simpleProjection()
        let frozen = projection.freeze()

        #expect(frozen.isFrozen)
        #expect(projection.int == frozen.int)
        try! projection.realm!.write {
            projection.int = 1
        }
        #expect(projection.int != frozen.int, "Frozen object shouldn't mutate")

        let thawed = frozen.thaw()!
        #expect(!thawed.isFrozen)
        #expect(thawed.int == projection.int, "Thawed object should reflect transactions since the original reference was frozen.")
    }

    @Test func testThawUpdatedOnDifferentThread() {
        let realm = realmWithTestPath()
        let projection = simpleProjection()
        let tsr = ThreadSafeReference(to: projection)
        nonisolated(unsafe) var frozen: SimpleProjection!

        let configuration = self.configuration
        dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let resolvedProjection: SimpleProjection = realm.resolve(tsr)!
            try! realm.write {
                resolvedProjection.int = 1
            }
            frozen = resolvedProjection.freeze()
        }

        let thawed = frozen.thaw()!
        #expect(thawed.int == 0, "Thaw shouldn't reflect background transactions until main thread realm is refreshed")
        realm.refresh()
        #expect(thawed.int == 1)
    }

    @Test func testThawCreatedOnDifferentThread() {
        let realm = realmWithTestPath()
        #expect(realm.objects(SimpleProjection.self).count == 0)
        nonisolated(unsafe) var frozen: SimpleProjection!
        let configuration = self.configuration
        dispatchSyncNewThread {
            frozen = ProjectionTests(configuration: configuration).simpleProjection().freeze()
        }
        #expect(frozen.thaw() == nil)
        #expect(realm.objects(SimpleProjection.self).count == 0)
        realm.refresh()
        #expect(realm.objects(SimpleProjection.self).count == 1)
    }
}

/// Realm's `CustomGlobalActor` in ProjectionTests: where actor observation delivers.
actor ChangeRecorder {
    private(set) var count = 0
    private var kept: [SimpleProjection] = []
    func fulfill() { count += 1 }
    /// Holds a delivered projection, to read it later on this actor.
    func keep(_ projection: SimpleProjection) { kept.append(projection) }
    /// The root objects' `bool` of the projections kept, read on this actor
    /// after its Realm refreshed.
    func keptBools() async -> [Bool] {
        if let realm = kept.first?.realm, !realm.isFrozen { await realm.asyncRefresh() }
        return kept.map { $0.rootObject.bool }
    }
}

// MARK: - ObjectBase

/// Realm names the common base of Object, EmbeddedObject and DynamicObject `ObjectBase`.
@Suite struct ObjectBaseTests {
    @Test("[ObjectBase.Type] lists objects and embedded objects and configures a Realm")
    func objectBaseTypes() throws {
        let types: [ObjectBase.Type] = [CommonPerson.self, AddressSwift.self, ExtraInfo.self, PhoneInfo.self, Mobile.self]
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: types))
        #expect(realm.schema.objectSchema.map(\.className).sorted() == ["AddressSwift", "CommonPerson", "ExtraInfo", "Mobile", "PhoneInfo"])
        let dynamic: [ObjectBase.Type] = [DynamicObject.self, EmbeddedObject.self, Object.self]
        #expect(dynamic.map { "\($0)" } == ["DynamicObject", "EmbeddedObject", "Object"])
    }

    @Test("ObjectChange<ObjectBase> observes any object")
    func objectChangeOfObjectBase() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [SimpleObject.self]))
        let object = try realm.write { realm.create(SimpleObject.self) }
        var names: [String] = []
        let token = object.observe { (change: ObjectChange<ObjectBase>) in
            if case .change(let changed, let properties) = change {
                names.append("\(changed.objectSchema.className).\(properties.map(\.name).joined())")
            }
        }
        try realm.write { object.int = 3 }
        realm.refresh()
        #expect(names == ["SimpleObject.int"])
        token.invalidate()
    }
}
