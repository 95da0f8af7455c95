import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Misuse through Realm's non-throwing API stops the program with Realm's
/// message, as Realm does; each case runs in a child process and the test
/// checks the message it printed.
@Suite struct ErrorTests {
    static func stderr(_ result: ExitTest.Result?) -> String {
        result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    }

    @Test("adding an object with a duplicate primary key stops with the class and value")
    func duplicatePrimaryKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            try realm.write {
                realm.create(Dog.self, value: ["id": 1])
                realm.add(Dog(value: ["id": 1]))
            }
        }
        #expect(Self.stderr(result).contains("Attempting to create an object of type 'Dog' with an existing primary key value '1'"))
    }

    @Test("create with a value of the wrong type stops naming the class, property and both types")
    func wrongValueType() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            try realm.write { realm.create(Dog.self, value: ["id": 1, "age": "three"]) }
        }
        #expect(Self.stderr(result).contains("Invalid value 'three' of type 'String' for 'int' property 'Dog.age'"))
    }

    @Test("create with an unknown property stops naming the class and property")
    func unknownProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            try realm.write { realm.create(Dog.self, value: ["id": 1, "colour": "brown"]) }
        }
        #expect(Self.stderr(result).contains("Invalid property name 'colour' for class 'Dog'"))
    }

    @Test("null for a non-optional property stops naming the property")
    func nullForRequired() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            try realm.write { realm.create(Dog.self, value: ["id": 1, "name": NSNull()]) }
        }
        #expect(Self.stderr(result).contains("Invalid null value for non-nullable property 'Dog.name'"))
    }

    @Test("changing a managed object's primary key stops")
    func primaryKeyChange() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            try realm.write {
                let dog = realm.create(Dog.self, value: ["id": 1])
                dog.id = 2
            }
        }
        #expect(Self.stderr(result).contains("Primary key can't be changed after an object is inserted: 'Dog.id' from '1' to '2'"))
    }

    @Test("setting a managed property outside a write transaction stops")
    func setOutsideWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            let dog = try realm.write { realm.create(Dog.self, value: ["id": 1]) }
            dog.name = "Rex"
        }
        #expect(Self.stderr(result).contains("Attempting to modify object outside of a write transaction"))
    }

    @Test("adding outside a write transaction stops")
    func addOutsideWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            realm.add(Dog())
        }
        #expect(Self.stderr(result).contains("Can only add, remove, or create objects in a Realm in a write transaction"))
    }

    @Test("reading a deleted object stops")
    func deletedObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            let dog = try realm.write { realm.create(Dog.self, value: ["id": 1]) }
            try realm.write { realm.delete(dog) }
            _ = dog.name
        }
        #expect(Self.stderr(result).contains("Object has been deleted or invalidated."))
    }

    @Test("reading an object after invalidate() stops")
    func invalidatedObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            let dog = try realm.write { realm.create(Dog.self, value: ["id": 1]) }
            realm.invalidate()
            _ = dog.age
        }
        #expect(Self.stderr(result).contains("Object has been deleted or invalidated."))
    }

    @Test("using a live Realm's object from another thread stops")
    func wrongThread() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            let results = try realm.write {
                realm.create(Dog.self, value: ["id": 1])
                return realm.objects(Dog.self)
            }
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                _ = results.count
                done.signal()
            }
            done.wait()
        }
        #expect(Self.stderr(result).contains("Realm accessed from incorrect thread."))
    }

    @Test("beginWrite inside a write transaction stops")
    func nestedBeginWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            realm.beginWrite()
            realm.beginWrite()
        }
        #expect(Self.stderr(result).contains("The Realm is already in a write transaction"))
    }

    @Test("modifying a frozen object stops")
    func modifyFrozen() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            let dog = try realm.write { realm.create(Dog.self, value: ["id": 1]) }
            let frozen = dog.freeze()
            try realm.write { frozen.name = "x" }
        }
        #expect(Self.stderr(result).contains("Attempting to modify a frozen object - call thaw on the Object instance first."))
    }

    @Test("freezing an object created in the current write stops")
    func freezeNewObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            try realm.write { _ = realm.create(Dog.self, value: ["id": 1]).freeze() }
        }
        #expect(Self.stderr(result).contains("Cannot freeze an object in the same write transaction as it was created in."))
    }

    @Test("using a class the Realm does not hold stops naming the class")
    func unknownClass() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm(types: [Person.self, Dog.self])
            _ = realm.objects(Kennel.self)
        }
        #expect(Self.stderr(result).contains("Object type 'Kennel' is not managed by the Realm"))
    }

    @Test("an out-of-bounds index stops with Realm's message")
    func outOfBounds() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            _ = realm.objects(Dog.self)[0]
        }
        #expect(Self.stderr(result).contains("Index 0 is out of bounds (must be less than 0)."))
    }

    @Test("cancelWrite without a write transaction stops")
    func cancelWithoutWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            realm.cancelWrite()
        }
        #expect(Self.stderr(result).contains("Can't cancel a non-existing write transaction"))
    }
}

/// Where Realm's API throws, Shoal throws a typed error naming the problem.
@Suite struct ThrownErrorTests {
    @Test("writing to a frozen Realm throws writeOnFrozenRealm")
    func writeFrozen() throws {
        let frozen = try makeRealm().freeze()
        let error = #expect(throws: ShoalError.self) { try frozen.write {} }
        #expect(error?.code == .writeOnFrozenRealm)
        #expect(error?.message == "Can't perform transactions on a frozen Realm")
    }

    @Test("writing to a read-only Realm throws writeOnReadOnlyRealm")
    func writeReadOnly() throws {
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [Person.self, Dog.self]
        config.readOnly = true
        let realm = try Realm(configuration: config)
        let error = #expect(throws: ShoalError.self) { try realm.write {} }
        #expect(error?.code == .writeOnReadOnlyRealm)
        #expect(error?.message.contains("read-only") == true)
    }

    @Test("commitWrite without a write transaction throws")
    func commitWithoutWrite() throws {
        let realm = try makeRealm()
        let error = #expect(throws: ShoalError.self) { try realm.commitWrite() }
        #expect(error?.message == "Can't commit a non-existing write transaction")
    }

    @Test("opening with classes that do not form a valid schema throws, naming the class and property")
    func invalidSchema() {
        let error = #expect(throws: ShoalError.self) { _ = try makeRealm(types: [Dog.self]) }
        #expect(error?.code == .schemaInvalid)
        #expect(error?.message.contains("Property 'Dog.owner' links to class 'Person', which is not in the schema") == true)
    }

    @Test("opening a store with a different schema than the one open in the process throws schemaMismatch listing the differences")
    func schemaMismatch() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name, types: [Person.self, Dog.self])
        let error = #expect(throws: ShoalError.self) { _ = try makeRealm(name, types: [Person.self, Dog.self, Kennel.self, Puppy.self]) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("Class 'Kennel' was added.") == true)
        _ = realm
    }

    @Test("an error thrown inside write cancels the transaction and is rethrown")
    func writeRethrows() throws {
        struct Boom: Error {}
        let realm = try makeRealm()
        #expect(throws: Boom.self) {
            try realm.write {
                realm.create(Dog.self, value: ["id": 1])
                throw Boom()
            }
        }
        #expect(realm.objects(Dog.self).isEmpty)
        #expect(!realm.isInWriteTransaction)
    }

    @Test("ShoalError matches by code in catch patterns and describes its context")
    func errorMatching() {
        let error = ShoalError(.corruptLog, "Bad record.", context: ["offset": "120", "version": "7"])
        var matched = false
        do { throw error } catch ShoalError.corruptLog { matched = true } catch {}
        #expect(matched)
        #expect(error.detailedDescription().contains("offset: 120"))
        #expect(error.code.rawValue == 301)
    }
}
