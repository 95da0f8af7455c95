import Dispatch
import Foundation
import Shoal
import ShoalTestSupport
import Testing

final class ThreadSafeHolder: @unchecked Sendable {
    @ThreadSafe var dog: Dog?
    @ThreadSafe var dogs: Results<Dog>?
}

/// `@ThreadSafe`, as Realm's ThreadSafeWrapperTests use it: a value read on
/// another thread is the same object in that thread's Realm.
@Suite struct ThreadSafeTests {
    static func onAnotherThread<R: Sendable>(_ body: @escaping @Sendable () -> R) -> R {
        let box = LockedBox<R>()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            box.value = body()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    final class LockedBox<R>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: R?
        var value: R? {
            get { lock.lock(); defer { lock.unlock() }; return stored }
            set { lock.lock(); stored = newValue; lock.unlock() }
        }
    }

    @Test("an object and results read on another thread resolve in that thread's Realm; a deleted object reads as nil")
    func resolvesOnAnotherThread() throws {
        let realm = try makeRealm()
        let rex = try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let holder = ThreadSafeHolder()
        holder.dog = rex
        holder.dogs = realm.objects(Dog.self)
        let seen = Self.onAnotherThread { () -> [String] in
            guard let dog = holder.dog, let dogs = holder.dogs else { return [] }
            return [dog.name, "\(dogs.count)", "\(dog.realm!.isFrozen)"]
        }
        #expect(seen == ["Rex", "1", "false"])
        #expect(holder.dog?.isSameObject(as: rex) == true)
        try realm.write { realm.delete(rex) }
        #expect(Self.onAnotherThread { holder.dog == nil })
        holder.dogs = nil
        #expect(holder.dogs == nil)
    }

    @Test("an unmanaged value stops with Realm's message")
    func unmanagedStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let holder = ThreadSafeHolder()
            holder.dog = Dog()
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Cannot construct reference to unmanaged object"))
    }
}
