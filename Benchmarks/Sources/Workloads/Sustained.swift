public import Dispatch
import Foundation

/// W12: a durable store under writers committing at full speed, with
/// observers of several kinds delivering on queues.
///
/// Each commit sets one dog's `age` to the next number of a sequence that
/// increases in commit order (taken inside the write transaction, which
/// both engines serialise), so that a callback knows how recent the data it
/// was handed is: the highest age it reads is the newest commit it reflects
/// among the dogs it observes.
public protocol SustainedStore: AnyObject {
    /// Registers `observers`, observer `i` delivering on
    /// `queues[i % queues.count]` (or as its kind delivers: an async
    /// sequence's task, an actor), each calling `recorder.saw(i, _:)` with
    /// the highest `age` among the dogs it was handed, and returns once every
    /// observer that has an initial callback has had it.
    func observe(_ observers: [SustainedObserver], queues: [DispatchQueue], recorder: SustainRecorder) throws

    /// A writer for the calling thread (Shoal's live Realms belong to one thread).
    func makeWriter() throws -> any SustainedWriter

    /// Cancels every observer and closes the store.
    func close() throws
}

/// One thread's writes to a ``SustainedStore``.
public protocol SustainedWriter: AnyObject {
    /// One write transaction setting the `age` of dog `id` to `next()`,
    /// called inside the transaction; returns the value written.
    func setAge(_ id: Int, next: () -> Int) throws -> Int
}

/// W12's observers: what each one watches, in both engines.
public enum SustainedObserver: Sendable, Hashable {
    /// Shoal: `objects(Dog.self).filter("owner.id == %@", k)`; GRDB:
    /// `SELECT * FROM dog WHERE ownerId = ?`.
    case filtered(owner: Int)
    /// Shoal: the dogs of one breed sorted by `age` descending, then `id`;
    /// GRDB: `SELECT * FROM dog WHERE breed = ? ORDER BY age DESC, id`. The
    /// callback reads the first dog.
    case sorted(breed: String)
    /// Shoal: `dog.observe(on:)`; GRDB: `SELECT * FROM dog WHERE id = ?`.
    case object(dog: Int)
    /// Shoal: `person.dogs.observe(on:)` (the list holds the person's dogs);
    /// GRDB: `SELECT * FROM dog WHERE ownerId = ? ORDER BY id`.
    case list(owner: Int)
    /// Shoal: the dogs of a range of owners sectioned by the first letter of
    /// their name; GRDB: `SELECT * FROM dog WHERE ownerId BETWEEN ? AND ?
    /// ORDER BY name, id`, grouped into sections by the callback.
    case sectioned(owners: Range<Int>)
    /// Shoal: `filter("owner.id == %@", k).changes` iterated by a task;
    /// GRDB: `ValueObservation.values(in:)` of the `filtered` query.
    case asyncSequence(owner: Int)
    /// Shoal: `filter("owner.id == %@", k).observe(on: actor)`; GRDB:
    /// `values(in:)` iterated by a task that hands each value to the actor.
    case actor(owner: Int)

    /// The kind's name, for the per-kind figures.
    public var kind: String {
        switch self {
        case .filtered: "filtered Results"
        case .sorted: "sorted Results"
        case .object: "object"
        case .list: "List"
        case .sectioned: "sectioned Results"
        case .asyncSequence: "async sequence"
        case .actor: "actor"
        }
    }

    /// The kind's short name, for `--sustain-kinds`: `filtered`, `sorted`,
    /// `object`, `list`, `sectioned`, `async`, `actor`.
    public var shortKind: String {
        switch self {
        case .filtered: "filtered"
        case .sorted: "sorted"
        case .object: "object"
        case .list: "list"
        case .sectioned: "sectioned"
        case .asyncSequence: "async"
        case .actor: "actor"
        }
    }

    /// Whether a change to `dog` changes what this observer watches.
    public func concerns(_ dog: Dataset.DogRow) -> Bool {
        switch self {
        case .filtered(let owner), .list(let owner), .asyncSequence(let owner), .actor(let owner): dog.ownerId == owner
        case .sorted(let breed): dog.breed == breed
        case .object(let id): dog.id == id
        case .sectioned(let owners): owners.contains(dog.ownerId)
        }
    }

    /// Dogs the writers change: those of the first 100 owners, so that
    /// every kind of observer sees commits.
    public static func hotDogs(_ data: Dataset) -> Int { min(1_000, data.dogs.count) }

    /// `count` observers, in a repeating pattern of 20: 6 filtered, 2 sorted,
    /// 4 object, 3 list, 1 sectioned, 2 async-sequence and 2 actor
    /// observers (100 observers: 30, 10, 20, 15, 5, 10, 10), watching the
    /// dogs the writers change.
    public static func mix(_ count: Int, data: Dataset) -> [SustainedObserver] {
        let hotDogs = hotDogs(data)
        let hotOwners = max(1, hotDogs / Dataset.dogsPerOwner)
        let pattern = "FFFFFFSSOOOOLLLXAACC"
        var seen: [Character: Int] = [:]
        return (0..<count).map { i in
            let c = pattern[pattern.index(pattern.startIndex, offsetBy: i % pattern.count)]
            let n = seen[c, default: 0]
            seen[c] = n + 1
            switch c {
            case "F": return .filtered(owner: (n * 7) % hotOwners)
            case "S": return .sorted(breed: Dataset.breeds[n % Dataset.breeds.count])
            case "O": return .object(dog: (n * 53 + 5) % hotDogs)
            case "L": return .list(owner: (n * 7 + 3) % hotOwners)
            case "X":
                let first = (n * 10) % hotOwners
                return .sectioned(owners: first..<min(first + 10, hotOwners))
            case "A": return .asyncSequence(owner: (n * 7 + 1) % hotOwners)
            default: return .actor(owner: (n * 7 + 2) % hotOwners)
            }
        }
    }
}

/// What W12's observers saw: for each observer, the times at which the
/// highest sequence number it had been handed went up. Thread-safe.
public final class SustainRecorder: @unchecked Sendable {
    // Safe because: each observer's slot is only touched under its lock,
    // and `initial` under its own.
    private final class Slot {
        let lock = NSLock()
        var highest = 0
        var callbacks = 0
        var times: [UInt64] = []
        var values: [Int] = []
    }

    private let slots: [Slot]
    private let initial: InitialCallbacks

    /// A recorder for `observers` observers, `initialCallbacks` of which
    /// have an initial callback (Shoal's object observers have none).
    public init(observers: Int, initialCallbacks: Int) {
        slots = (0..<observers).map { _ in Slot() }
        initial = InitialCallbacks(expecting: initialCallbacks)
    }

    /// Called by observer `observer` from its callback, with the highest
    /// `age` among the dogs it was handed.
    public func saw(_ observer: Int, _ value: Int) {
        let slot = slots[observer]
        slot.lock.lock()
        slot.callbacks += 1
        if value > slot.highest {
            slot.highest = value
            slot.times.append(Measure.now())
            slot.values.append(value)
        }
        slot.lock.unlock()
    }

    /// Called once by each observer that has an initial callback, from it.
    public func initialArrived() { initial.arrived() }

    /// Waits until every initial callback has arrived.
    public func waitForInitialCallbacks(_ what: String) { initial.wait(what) }

    /// The highest value observer `observer` has seen.
    public func highest(_ observer: Int) -> Int {
        let slot = slots[observer]
        slot.lock.lock()
        defer { slot.lock.unlock() }
        return slot.highest
    }

    /// Observer `observer`'s callbacks so far, and the times (monotonic ns)
    /// at which its highest value went up, with the new values.
    public func history(_ observer: Int) -> (callbacks: Int, times: [UInt64], values: [Int]) {
        let slot = slots[observer]
        slot.lock.lock()
        defer { slot.lock.unlock() }
        return (slot.callbacks, slot.times, slot.values)
    }
}

/// The highest `age` among `ages`, 0 for none.
@inline(__always)
func highest<S: Sequence>(_ ages: S) -> Int where S.Element == Int { ages.reduce(0, max) }
