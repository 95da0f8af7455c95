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

    /// Commits a dog from a fresh thread's Realm and resumes once it is
    /// committed; the resumption is queued behind what the commit queued.
    static func commitElsewhere(_ config: Realm.Configuration, id: Int) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                let other = try! Realm(configuration: config)
                try! other.write { other.create(Dog.self, value: ["id": id]) }
                done.resume()
            }
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
        // The main actor resumed here after the refresh the commit queued on the main queue.
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
    @Test("the main actor's Realm is used after awaits that resume it on other threads (the main queue's workers on Linux)")
    func mainActorRealmAcrossThreads() async throws {
        let config = Self.configuration()
        let realm = try Realm(configuration: config)
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let dogs = realm.objects(Dog.self)
        let opened = pthread_self()
        var hopped = false
        // Each await resumes on whatever thread drains the main queue next;
        // a few hundred give every platform that hops a chance to.
        for _ in 0..<300 where !hopped {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { done.resume() }
            }
            hopped = pthread_self() != opened
            #expect(dogs.count == 1)
            try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 1)!.age += 1 }
        }
        // Where the main actor runs on the main thread alone, there is no hop to make.
        #expect(hopped || Thread.isMainThread)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)!.age > 0)
    }
}
