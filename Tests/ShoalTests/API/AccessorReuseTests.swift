import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// A class with state of its own beside its persisted properties.
final class Tagged: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""
    /// Not persisted: must stay with the accessor it was set on.
    var mark = ""
    lazy var shout: String = name.uppercased()
}

/// A class that counts the accessors made of it.
final class Counted: Object {
    nonisolated(unsafe) static var made = 0
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""

    override init() {
        super.init()
        Counted.made += 1
    }
}

@Suite(.serialized) struct AccessorReuseTests {
    static func realm(dogs: Int) throws -> Realm {
        let realm = try makeRealm(types: [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self, Tagged.self, Counted.self])
        try realm.write {
            for i in 1...dogs {
                realm.create(Dog.self, value: ["id": i, "name": "dog\(i)"])
                realm.create(Note.self, value: ["id": i, "title": "note\(i)"])
                realm.create(Tagged.self, value: ["id": i, "name": "tag\(i)"])
                realm.create(Counted.self, value: ["id": i, "name": "counted\(i)"])
            }
        }
        return realm
    }

    @Test("a for loop that lets each element go is handed one accessor, pointed at each object in turn")
    func loopReusesOneAccessor() throws {
        let realm = try Self.realm(dogs: 50)
        var identities = Set<ObjectIdentifier>()
        var names: [String] = []
        for dog in realm.objects(Dog.self).sorted(byKeyPath: "id") {
            identities.insert(ObjectIdentifier(dog))
            names.append(dog.name)
            #expect(dog.name == "dog\(dog.id)" && !dog.isInvalidated && dog.realm != nil)
        }
        #expect(names == (1...50).map { "dog\($0)" })
        #expect(identities.count == 1)
        let counted = realm.objects(Counted.self)
        _ = counted.count
        let before = Counted.made
        var total = 0
        for counted in counted { total += counted.name.count }
        #expect(total == (1...50).reduce(0) { $0 + "counted\($1)".count })
        let loop = Counted.made - before
        #expect(loop <= 2, "\(loop) accessors for 50 elements")
        // Kept, one accessor per element.
        let kept = Array(counted)
        #expect(Counted.made - before - loop == 50 && kept.count == 50, "\(Counted.made - before - loop)")
    }

    @Test("elements kept past their turn are never reused: each keeps its own object")
    func keptElementsAreDistinct() throws {
        let realm = try Self.realm(dogs: 20)
        var kept: [Dog] = []
        for dog in realm.objects(Dog.self).sorted(byKeyPath: "id") where dog.id % 2 == 0 { kept.append(dog) }
        #expect(kept.map(\.id) == Array(stride(from: 2, through: 20, by: 2)))
        #expect(Set(kept.map(ObjectIdentifier.init)).count == kept.count)
        // Kept in an array made by the sequence, and by a loop variable held outside.
        let all = Array(realm.objects(Dog.self).sorted(byKeyPath: "id"))
        #expect(all.map(\.name) == (1...20).map { "dog\($0)" })
        var previous: Dog?
        for dog in realm.objects(Dog.self).sorted(byKeyPath: "id") {
            if let previous { #expect(previous.id == dog.id - 1 && previous !== dog) }
            previous = dog
        }
    }

    @Test("a class with state of its own, or that is Encodable, gets a new accessor per element")
    func statefulAndCodableClassesAreNotReused() throws {
        let realm = try Self.realm(dogs: 10)
        #expect(ClassRegistry.info(for: Dog.self).accessorsReusable)
        #expect(!ClassRegistry.info(for: Tagged.self).accessorsReusable)
        #expect(!ClassRegistry.info(for: Note.self).accessorsReusable)
        for tagged in realm.objects(Tagged.self).sorted(byKeyPath: "id") {
            // A fresh accessor: nothing carried over from the previous element.
            #expect(tagged.mark.isEmpty)
            tagged.mark = "seen"
            #expect(tagged.shout == "TAG\(tagged.id)")
        }
        let encoder = JSONEncoder()
        for note in realm.objects(Note.self).sorted(byKeyPath: "id") {
            let json = try #require(String(data: try encoder.encode(note), encoding: .utf8))
            #expect(json.contains("\"id\":\(note.id)") && json.contains("note\(note.id)"), "\(json)")
        }
    }

    // A re-pointed accessor knows its object was live when the loop began
    // and skips the look-up while the Realm's state is unchanged; each way
    // the state can change must bring the look-up back.

    /// Iterates five dogs, running `beforeLoop` first, and calls `body`
    /// with the third: an accessor the iterator re-pointed.
    static func withThirdDog(beforeLoop: (Realm) -> Void = { _ in }, _ body: (Realm, Dog) throws -> Void) throws {
        let realm = try realm(dogs: 5)
        beforeLoop(realm)
        var seen = 0
        for dog in realm.objects(Dog.self) {
            seen += 1
            if seen == 3 { try body(realm, dog) }
        }
    }

    @Test("a re-pointed accessor stops when read after a write deleted its object")
    func reusedAccessorDeletedByWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try AccessorReuseTests.withThirdDog { realm, dog in
                try realm.write { realm.delete(dog) }
                _ = dog.name
            }
        }
        #expect(ErrorTests.stderr(result).contains("Object has been deleted or invalidated."))
    }

    @Test("a re-pointed accessor stops when read after its object is deleted in the open write")
    func reusedAccessorDeletedInWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try AccessorReuseTests.withThirdDog(beforeLoop: { $0.beginWrite() }) { realm, dog in
                realm.delete(dog)
                _ = dog.name
            }
        }
        #expect(ErrorTests.stderr(result).contains("Object has been deleted or invalidated."))
    }

    @Test("a re-pointed accessor stops when read after refreshing to a version where another thread deleted its object")
    func reusedAccessorDeletedElsewhere() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try AccessorReuseTests.withThirdDog { realm, dog in
                let (configuration, id) = (realm.configuration, dog.id)
                let done = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    let other = try! Realm(configuration: configuration)
                    try! other.write { other.delete(other.object(ofType: Dog.self, forPrimaryKey: id)!) }
                    done.signal()
                }
                done.wait()
                // Still live in the version this Realm reads.
                guard dog.name == "dog\(id)" else { exit(0) }
                realm.refresh()
                _ = dog.name
            }
        }
        #expect(ErrorTests.stderr(result).contains("Object has been deleted or invalidated."))
    }

    @Test("a re-pointed accessor read from another thread stops")
    func reusedAccessorOnAnotherThread() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try AccessorReuseTests.withThirdDog { _, dog in
                nonisolated(unsafe) let elsewhere = dog
                let done = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    _ = elsewhere.name
                    done.signal()
                }
                done.wait()
            }
        }
        #expect(ErrorTests.stderr(result).contains("Realm accessed from incorrect thread."))
    }

    @Test("a re-pointed accessor reads on after writes that leave its object, and after invalidate stops")
    func reusedAccessorAcrossWrites() async throws {
        let realm = try Self.realm(dogs: 5)
        var names: [String] = []
        for dog in realm.objects(Dog.self).sorted(byKeyPath: "id") {
            // The loop goes over what matched when it began: dog 3, deleted
            // at dog 2's turn, comes up invalidated.
            if dog.isInvalidated {
                names.append("deleted")
                continue
            }
            // A write that deletes another object, and one that renames this one.
            try realm.write {
                if dog.id == 2 { realm.delete(realm.object(ofType: Dog.self, forPrimaryKey: 3)!) }
                dog.name = "renamed\(dog.id)"
            }
            names.append(dog.name)
        }
        #expect(names == ["renamed1", "renamed2", "deleted", "renamed4", "renamed5"])
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try AccessorReuseTests.withThirdDog { realm, dog in
                realm.invalidate()
                _ = dog.name
            }
        }
        #expect(ErrorTests.stderr(result).contains("Object has been deleted or invalidated."))
    }

    @Test("after invalidate(), the next re-pointed accessor stops when its object was deleted in the version invalidate moved to")
    func reusedAccessorAfterInvalidate() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try AccessorReuseTests.realm(dogs: 5)
            let configuration = realm.configuration
            var seen = 0
            for dog in realm.objects(Dog.self).sorted(byKeyPath: "id") {
                seen += 1
                if seen == 3 {
                    // Dog 4 is deleted on another thread; invalidate moves to that version.
                    let done = DispatchSemaphore(value: 0)
                    Thread.detachNewThread {
                        let other = try! Realm(configuration: configuration)
                        try! other.write { other.delete(other.object(ofType: Dog.self, forPrimaryKey: 4)!) }
                        done.signal()
                    }
                    done.wait()
                    realm.invalidate()
                } else if seen == 4 {
                    _ = dog.name
                }
            }
        }
        #expect(ErrorTests.stderr(result).contains("Object has been deleted or invalidated."))
    }

    @Test("a re-pointed accessor from a List stops when read after a write deleted its object")
    func reusedListAccessorDeletedByWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try AccessorReuseTests.realm(dogs: 5)
            let person = try realm.write {
                let person = realm.create(Person.self, value: ["id": 1])
                person.dogs.append(objectsIn: realm.objects(Dog.self).sorted(byKeyPath: "id"))
                return person
            }
            var seen = 0
            for dog in person.dogs {
                seen += 1
                guard seen == 3 else { continue }
                try realm.write { realm.delete(dog) }
                _ = dog.name
            }
        }
        #expect(ErrorTests.stderr(result).contains("Object has been deleted or invalidated."))
    }
}
