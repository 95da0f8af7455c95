import Dispatch
import Foundation
import Shoal
import ShoalTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Realm's autorefresh: a Realm with somewhere to run later (the main queue,
/// its serial queue) moves to another thread's commit there, with no
/// `refresh()` and no notification token.
@Suite struct AutorefreshTests {
    static func configuration() -> Realm.Configuration {
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]
        return config
    }

    /// Commits a dog from a fresh thread's Realm, then lets the main queue
    /// run what it holds (what the commit queued there included) before
    /// resuming.
    static func commitElsewhere(_ config: Realm.Configuration, id: Int) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                let other = try! Realm(configuration: config)
                try! other.write { other.create(Dog.self, value: ["id": id]) }
                done.resume()
            }
        }
        // A continuation resumed before its task suspended goes on at once:
        // a block queued now runs after everything the commit queued.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { done.resume() }
        }
    }

    @MainActor
    @Test("the main Realm moves to another thread's commit once the main queue runs, without refresh() or tokens")
    func mainRealmAutorefreshes() async throws {
        let config = Self.configuration()
        let realm = try Realm(configuration: config)
        #expect(realm.autorefresh)
        let dogs = realm.objects(Dog.self)
        #expect(dogs.count == 0)
        await Self.commitElsewhere(config, id: 1)
        #expect(dogs.count == 1)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1) != nil)
    }

    @MainActor
    @Test("with autorefresh off the main Realm stays at its version and is told .refreshRequired")
    func autorefreshOff() async throws {
        let config = Self.configuration()
        let realm = try Realm(configuration: config)
        realm.autorefresh = false
        #expect(!realm.autorefresh)
        var told: [Realm.Notification] = []
        let token = realm.observe { notification, _ in told.append(notification) }
        await Self.commitElsewhere(config, id: 1)
        #expect(realm.objects(Dog.self).count == 0)
        #expect(told == [.refreshRequired])
        realm.refresh()
        #expect(realm.objects(Dog.self).count == 1)
        #expect(told == [.refreshRequired, .didChange])
        token.invalidate()
        realm.autorefresh = true
    }

    @Test("a queue-confined Realm moves to another thread's commit on its queue")
    func queueRealmAutorefreshes() throws {
        let config = Self.configuration()
        let queue = DispatchQueue(label: "autorefresh")
        let realm = try queue.sync { try Realm(configuration: config, queue: queue) }
        let dogs = queue.sync { realm.objects(Dog.self) }
        #expect(queue.sync { dogs.count } == 0)
        let writer = try Realm(configuration: config)
        try writer.write { writer.create(Dog.self, value: ["id": 1]) }
        // The refresh the commit queued runs before this block.
        #expect(queue.sync { dogs.count } == 1)
    }

    @MainActor
    @Test("the main actor's Realm is used after awaits, on whatever thread drains the main queue")
    func mainActorRealmAcrossAwaits() async throws {
        let realm = try Realm(configuration: Self.configuration())
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let dogs = realm.objects(Dog.self)
        for round in 1...20 {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { done.resume() }
            }
            try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 1)!.age += 1 }
            #expect(dogs.first?.age == round)
        }
    }

    @Test("the main queue's Realm is used from main-queue blocks run on two different threads")
    func mainQueueRealmOnTwoThreads() throws {
        let (threads, counts) = Self.openAndUseInMainQueueBlocks(Self.configuration())
        #expect(counts == [1, 2])
        // Where the main thread itself drains the main queue both blocks ran there.
        #expect(Set(threads).count == 2 || threads == ["main", "main"])
    }

    @Test("in a fresh process, the first Realm ever opened, in a main-queue block off the main thread, is the main queue's")
    func mainQueueRealmFirstInProcess() async {
        // The first check of the process is the one that must already know
        // the main queue: nothing in the child has used Shoal before.
        await #expect(processExitsWith: .success) {
            let (_, counts) = AutorefreshTests.openAndUseInMainQueueBlocks(AutorefreshTests.configuration())
            if counts != [1, 2] { exit(1) }
        }
    }

    /// Opens a Realm in a main-queue block on one thread and uses it in a
    /// main-queue block on another: the threads the blocks ran on and the
    /// dog counts each saw.
    ///
    /// `DispatchQueue.main.sync` runs its block on the calling thread once
    /// the main queue is drained by worker threads (Swift Testing's async
    /// main calls dispatchMain() on Linux): main-queue code, so main-actor
    /// code, on two threads, as after an await that hops.
    static func openAndUseInMainQueueBlocks(_ config: Realm.Configuration) -> (threads: [String], counts: [Int]) {
        let state = MainQueueRealmHolder()
        let opened = DispatchSemaphore(value: 0), used = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        // The first thread outlives the second's block, so the two threads' identifiers differ.
        Thread.detachNewThread {
            DispatchQueue.main.sync { state.open(config) }
            opened.signal()
            _ = used.wait(timeout: .now() + 10)
            finished.signal()
        }
        Thread.detachNewThread {
            guard opened.wait(timeout: .now() + 10) == .success else { return }
            DispatchQueue.main.sync { state.use() }
            used.signal()
        }
        guard finished.wait(timeout: .now() + 10) == .success else { return ([], []) }
        return DispatchQueue.main.sync { (state.threads, state.counts) }
    }
}

/// A Realm opened and used in main-queue blocks, with the threads they ran on.
final class MainQueueRealmHolder: @unchecked Sendable {
    // Safe because: every member is used only inside main-queue blocks, which never overlap.
    var realm: Realm?
    var threads: [String] = []
    var counts: [Int] = []

    func open(_ config: Realm.Configuration) {
        realm = try! Realm(configuration: config)
        note()
    }

    func use() { note() }

    private func note() {
        let realm = realm!
        try! realm.write { realm.create(Dog.self, value: ["id": counts.count + 1]) }
        counts.append(realm.objects(Dog.self).count)
        threads.append(Thread.isMainThread ? "main" : "\(pthread_self())")
    }
}
