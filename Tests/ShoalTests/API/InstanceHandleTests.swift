import Dispatch
import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct InstanceHandleTests {
    @Test("a handle gives its instance while something holds it, and nil once it is released")
    func loadsWhileAlive() throws {
        let realm = try makeRealm()
        var instance: RealmInstance? = RealmInstance(configuration: realm.configuration, coordinator: realm.instance.coordinator,
            snapshot: realm.instance.coordinator.latest, frozen: false)
        let handle = instance!.handle
        #expect(handle.load() === instance)
        instance = nil
        #expect(handle.load() == nil)
    }

    @Test("an instance released on one thread while another loads its handle is never handed out once going")
    func raceWithRelease() async throws {
        let realm = try makeRealm()
        let coordinator = realm.instance.coordinator
        let configuration = realm.configuration
        for _ in 0..<2_000 {
            let box = Locked<RealmInstance?>(RealmInstance(configuration: configuration, coordinator: coordinator,
                snapshot: coordinator.latest, frozen: false))
            let handle = box.withLock { $0!.handle }
            let loaded = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                if i == 0 {
                    box.withLock { $0 = nil }
                } else {
                    for _ in 0..<50 {
                        // A loaded instance must be whole: its schema readable.
                        if let instance = handle.load() {
                            _ = instance.schema.objectSchema.count
                            loaded.withLock { $0 += 1 }
                        }
                    }
                }
            }
            #expect(handle.load() == nil)
        }
    }

    @Test("the per-thread cache hands out the same instance while it is held, and a new one once it is released")
    func threadCache() throws {
        let realm = try makeRealm()
        let coordinator = realm.instance.coordinator
        let configuration = realm.configuration
        let outcome = Locked<(same: Bool, oldGone: Bool, fresh: Bool)?>(nil)
        // On a thread of its own, where nothing else holds an instance.
        let thread = Thread {
            var first: RealmInstance? = RealmInstance.live(configuration: configuration, coordinator: coordinator)
            let same = RealmInstance.live(configuration: configuration, coordinator: coordinator) === first
            let handle = first!.handle
            first = nil
            let oldGone = handle.load() == nil
            let next = RealmInstance.live(configuration: configuration, coordinator: coordinator)
            outcome.withLock { $0 = (same, oldGone, next.handle !== handle) }
        }
        thread.start()
        while outcome.withLock({ $0 }) == nil { Thread.sleep(forTimeInterval: 0.001) }
        let result = try #require(outcome.withLock { $0 })
        #expect(result.same && result.oldGone && result.fresh)
    }
}
