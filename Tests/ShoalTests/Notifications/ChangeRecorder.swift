import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Test models whose identity is an integer primary key, so that a
/// delivered collection can be written as an array of ids.
protocol IntIdentified { var id: Int { get } }
extension Dog: IntIdentified {}
extension Person: IntIdentified {}
extension Chain: IntIdentified {}

/// One delivered collection change, its collection written as element ids.
enum CollectionEvent: Equatable, CustomStringConvertible {
    case initial([Int])
    case update([Int], deletions: [Int], insertions: [Int], modifications: [Int])
    case error(String)

    var description: String {
        switch self {
        case .initial(let ids): ".initial(\(ids))"
        case let .update(ids, d, i, m): ".update(\(ids), deletions: \(d), insertions: \(i), modifications: \(m))"
        case .error(let message): ".error(\(message))"
        }
    }

    /// The message of an `.error`; `nil` for other events.
    var errorMessage: String? { if case .error(let message) = self { message } else { nil } }
}

/// Records every change delivered to the collection observers it is
/// handed to, from any thread.
final class Recorder: Sendable {
    private let state = Locked<[CollectionEvent]>([])

    /// The events recorded so far, oldest first.
    var events: [CollectionEvent] { state.withLock { $0 } }

    /// Returns the events recorded since the last call and forgets them.
    func take() -> [CollectionEvent] { state.withLock { events in defer { events = [] }; return events } }

    /// The observer block: pass `recorder.handle` to `observe`.
    func handle<C: RealmCollection>(_ change: RealmCollectionChange<C>) where C.Element: IntIdentified {
        let event: CollectionEvent = switch change {
        case .initial(let collection): .initial(Self.ids(collection))
        case let .update(collection, deletions, insertions, modifications):
            .update(Self.ids(collection), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): .error("\(error)")
        }
        state.withLock { $0.append(event) }
    }

    /// The ids of a delivered collection; none once it is invalidated (a
    /// list whose owner was deleted cannot be read, as in Realm).
    static func ids<C: RealmCollection>(_ collection: C) -> [Int] where C.Element: IntIdentified {
        collection.isInvalidated ? [] : collection.map(\.id)
    }
}

/// One delivered object change: property changes written as
/// "name: old -> new", sorted by name.
enum ObjectEvent: Equatable, CustomStringConvertible {
    case change([String])
    case deleted
    case error(String)

    var description: String {
        switch self {
        case .change(let properties): ".change(\(properties))"
        case .deleted: ".deleted"
        case .error(let message): ".error(\(message))"
        }
    }

    /// The message of an `.error`; `nil` for other events.
    var errorMessage: String? { if case .error(let message) = self { message } else { nil } }
}

/// Records every change delivered to the observers of `T` objects it is
/// handed to (`T` fixes the generic `observe`, as Realm's does).
final class ObjectRecorder<T: Object>: Sendable {
    private let state = Locked<[ObjectEvent]>([])

    var events: [ObjectEvent] { state.withLock { $0 } }

    func take() -> [ObjectEvent] { state.withLock { events in defer { events = [] }; return events } }

    /// The observer block: pass `recorder.handle` to `observe`.
    func handle(_ change: ObjectChange<T>) {
        let event: ObjectEvent = switch change {
        case .change(_, let properties):
            .change(properties.map { "\($0.name): \(Self.describe($0.oldValue)) -> \(Self.describe($0.newValue))" }.sorted())
        case .deleted: .deleted
        case .error(let error): .error("\(error)")
        }
        state.withLock { $0.append(event) }
    }

    /// A property value as the tests write it: objects by class and id.
    private static func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first.map { describe($0.value) } ?? "nil" }
        if let dog = value as? Dog { return "Dog(\(dog.id))" }
        if let person = value as? Person { return "Person(\(person.id))" }
        return String(describing: value)
    }
}

/// One delivered map change, keys as sets (their order is unspecified).
enum MapEvent: Equatable, CustomStringConvertible {
    case initial(Set<String>)
    case update(Set<String>, deletions: Set<String>, insertions: Set<String>, modifications: Set<String>)
    case error(String)

    var description: String {
        switch self {
        case .initial(let keys): ".initial(\(keys.sorted()))"
        case let .update(keys, d, i, m): ".update(\(keys.sorted()), deletions: \(d.sorted()), insertions: \(i.sorted()), modifications: \(m.sorted()))"
        case .error(let message): ".error(\(message))"
        }
    }
}

/// Records every change delivered to the map observers it is handed to.
final class MapRecorder: Sendable {
    private let state = Locked<[MapEvent]>([])

    var events: [MapEvent] { state.withLock { $0 } }

    func take() -> [MapEvent] { state.withLock { events in defer { events = [] }; return events } }

    /// The observer block: pass `recorder.handle` to `observe`.
    func handle<V: RealmCollectionValue>(_ change: RealmMapChange<Map<String, V>>) {
        let event: MapEvent = switch change {
        case .initial(let map): .initial(Set(map.keys))
        case let .update(map, deletions, insertions, modifications):
            .update(Set(map.keys), deletions: Set(deletions), insertions: Set(insertions), modifications: Set(modifications))
        case .error(let error): .error("\(error)")
        }
        state.withLock { $0.append(event) }
    }
}

/// Fixtures shared by the notification suites.
enum Fixture {
    /// A Realm holding dogs with the given ids, named "d<id>", aged `age(id)`.
    static func dogs(_ ids: ClosedRange<Int>, age: (Int) -> Int = { $0 }) throws -> Realm {
        let realm = try makeRealm()
        try realm.write {
            for id in ids { realm.create(Dog.self, value: ["id": id, "name": "d\(id)", "age": age(id)]) }
        }
        return realm
    }

    /// Runs `body` in a write transaction of another thread's instance of
    /// `realm`'s in-memory Realm and waits for it: the observing thread's
    /// `beginWrite()`, which delivers, is not involved, so several such
    /// commits coalesce until the observing thread refreshes.
    static func writeElsewhere(_ realm: Realm, _ body: @escaping @Sendable (Realm) -> Void) {
        guard let name = realm.configuration.inMemoryIdentifier else { preconditionFailure("an in-memory Realm") }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let other = try! makeRealm(name)
            try! other.write { body(other) }
            done.signal()
        }
        done.wait()
    }

    /// Checks that a token's callbacks were exactly one `.error` (given as
    /// the events' error messages, `nil` for other events) naming the
    /// property and class as Realm's message does.
    static func expectInvalidKeyPath(_ messages: [String?], property: String, className: String,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(messages.count == 1, "\(messages)", sourceLocation: sourceLocation)
        let expected = "Invalid property name: property '\(property)' not found in object of type '\(className)'"
        #expect(messages.first??.contains(expected) == true, "\(messages)", sourceLocation: sourceLocation)
    }

    /// The dog with the given id.
    static func dog(_ realm: Realm, _ id: Int) -> Dog {
        guard let dog = realm.object(ofType: Dog.self, forPrimaryKey: id) else { preconditionFailure("no dog \(id)") }
        return dog
    }

    /// The person with the given id.
    static func person(_ realm: Realm, _ id: Int) -> Person {
        guard let person = realm.object(ofType: Person.self, forPrimaryKey: id) else { preconditionFailure("no person \(id)") }
        return person
    }
}

/// Waits for `condition`, then expects it.
///
/// The wait is long (ten minutes) and ends as soon as the condition holds:
/// the whole test run shares one cooperative pool, as wide as the machine
/// has cores, and a delivery's job may queue behind every test started
/// before it.
func waitFor(_ condition: () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now.advanced(by: .seconds(600))
    while !(await condition()), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    #expect(await condition(), sourceLocation: sourceLocation)
}
