import Foundation
import OpenCombine
import Shoal
import ShoalTestSupport

/// A subscriber that records what it receives, asking for `initial` values
/// at subscription and `perValue` more with each one (`.max(1)` and `.none`
/// for one element at a time). Usable from a queue: every field is locked.
final class Probe<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    // Safe because: all state is guarded by `lock`.
    private let lock = NSLock()
    private var received: [Input] = []
    private var ended: Subscribers.Completion<Failure>?
    private var subscription: (any Subscription)?
    private let initial: Subscribers.Demand
    private let perValue: Subscribers.Demand
    private let onValue: (Input) -> Void
    private let arrived = DispatchSemaphore(value: 0)

    init(initial: Subscribers.Demand = .unlimited, perValue: Subscribers.Demand = .none,
        onValue: @escaping (Input) -> Void = { _ in })
    {
        self.initial = initial
        self.perValue = perValue
        self.onValue = onValue
    }

    var values: [Input] { lock.withLock { received } }
    var completion: Subscribers.Completion<Failure>? { lock.withLock { ended } }
    var isFinished: Bool {
        if case .finished = completion { return true }
        return false
    }

    /// The values received since the last call, forgotten.
    func take() -> [Input] { lock.withLock { defer { received = [] }; return received } }

    /// Waits for a value or the completion (for queue deliveries).
    func wait(seconds: Double = 10) -> Bool { arrived.wait(timeout: .now() + seconds) == .success }

    func request(_ demand: Subscribers.Demand) { lock.withLock { subscription }?.request(demand) }
    func cancel() { lock.withLock { subscription }?.cancel() }

    func receive(subscription: any Subscription) {
        lock.withLock { self.subscription = subscription }
        subscription.request(initial)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        onValue(input)
        lock.withLock { received.append(input) }
        arrived.signal()
        return perValue
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        lock.withLock { ended = completion }
        arrived.signal()
    }
}

/// A collection change as ids and indices, to compare with `==`.
enum Event: Equatable {
    case initial([Int])
    case update([Int], deletions: [Int], insertions: [Int], modifications: [Int])
    case error(String)

    init<C: RealmCollection>(_ change: RealmCollectionChange<C>) where C.Element == Dog {
        switch change {
        case .initial(let c): self = .initial(Self.ids(c))
        case .update(let c, let d, let i, let m): self = .update(Self.ids(c), deletions: d, insertions: i, modifications: m)
        case .error(let error): self = .error("\(error)")
        }
    }

    /// The ids in a collection; none once it is invalidated (a list whose
    /// owner was deleted cannot be read).
    static func ids<C: RealmCollection>(_ collection: C) -> [Int] where C.Element == Dog {
        collection.isInvalidated ? [] : collection.map(\.id)
    }
}

enum Fixture {
    /// A Realm holding dogs with the given ids, named "d<id>", aged `id`.
    static func dogs(_ ids: ClosedRange<Int>) throws -> Realm {
        let realm = try makeRealm()
        try realm.write {
            for id in ids { realm.create(Dog.self, value: ["id": id, "name": "d\(id)", "age": id]) }
        }
        return realm
    }

    static func dog(_ realm: Realm, _ id: Int) -> Dog { realm.object(ofType: Dog.self, forPrimaryKey: id)! }

    /// Commits `body` from another thread's Realm of the same in-memory
    /// store and waits for it: the observing Realm sees it only at its
    /// next `refresh()`.
    static func writeElsewhere(_ realm: Realm, _ body: @escaping @Sendable (Realm) -> Void) {
        let name = realm.configuration.inMemoryIdentifier!
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let other = try! makeRealm(name)
            try! other.write { body(other) }
            done.signal()
        }
        done.wait()
    }
}
