import Foundation
import OpenCombine
import OpenCombineDispatch
@testable import Shoal
import ShoalCombine
import ShoalTestSupport
import Testing

/// `subscribe(on:)`, `receive(on:)`, `threadSafeReference()` and `freeze()`:
/// values delivered on a serial queue, live there or frozen.
@Suite struct QueuePublisherTests {
    /// A serial queue that can tell whether code runs on it.
    final class TaggedQueue: Sendable {
        let queue: DispatchQueue
        private let key = DispatchSpecificKey<Bool>()
        init(_ label: String) {
            queue = DispatchQueue(label: label)
            queue.setSpecific(key: key, value: true)
        }
        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
    }

    @Test("subscribe(on:) observes on the queue: values arrive there without refresh(), live on that queue")
    func subscribeOn() throws {
        let realm = try Fixture.dogs(1...2)
        let tagged = TaggedQueue("shoal.combine.subscribe-on")
        let onQueue = Locked<[Bool]>([])
        let counts = Locked<[Int]>([])
        let probe = Probe<Results<Dog>, any Error> { dogs in
            onQueue.withLock { $0.append(tagged.isCurrent) }
            counts.withLock { $0.append(dogs.count) }   // readable there
        }
        realm.objects(Dog.self).collectionPublisher.subscribe(on: tagged.queue).subscribe(probe)
        #expect(probe.wait())
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        #expect(probe.wait())
        #expect(counts.withLock { $0 } == [2, 3])
        #expect(onQueue.withLock { $0 } == [true, true])
        probe.cancel()
    }

    @Test("subscribe(on:) takes an OpenCombine scheduler (queue.ocombine) too, for changesets")
    func subscribeOnScheduler() throws {
        let realm = try Fixture.dogs(1...1)
        let tagged = TaggedQueue("shoal.combine.scheduler")
        let onQueue = Locked<[Bool]>([])
        let events = Locked<[Event]>([])
        let probe = Probe<RealmCollectionChange<Results<Dog>>, Never> { change in
            onQueue.withLock { $0.append(tagged.isCurrent) }
            events.withLock { $0.append(Event(change)) }
        }
        realm.objects(Dog.self).changesetPublisher.subscribe(on: tagged.queue.ocombine).subscribe(probe)
        #expect(probe.wait())
        try realm.write { Fixture.dog(realm, 1).name = "x" }
        #expect(probe.wait())
        #expect(events.withLock { $0 } == [.initial([1]), .update([1], deletions: [], insertions: [], modifications: [0])])
        #expect(onQueue.withLock { $0 } == [true, true])
        probe.cancel()
    }

    @Test("receive(on:) hands each object over to the queue's live Realm")
    func receiveOn() throws {
        let realm = try Fixture.dogs(1...1)
        let tagged = TaggedQueue("shoal.combine.receive-on")
        let names = Locked<[String]>([])
        let probe = Probe<Dog, any Error> { dog in
            names.withLock { $0.append("\(dog.name) frozen:\(dog.isFrozen) here:\(tagged.isCurrent)") }
        }
        valuePublisher(Fixture.dog(realm, 1)).receive(on: tagged.queue).subscribe(probe)
        try realm.write { Fixture.dog(realm, 1).name = "handed over" }
        realm.refresh()
        #expect(probe.wait())
        #expect(names.withLock { $0 } == ["handed over frozen:false here:true"])
        probe.cancel()
    }

    @Test("threadSafeReference() makes receive(on:) work after other operators, for objects and changesets")
    func threadSafeReference() throws {
        let realm = try Fixture.dogs(1...2)
        let tagged = TaggedQueue("shoal.combine.tsr")
        let seen = Locked<[String]>([])
        let objects = Probe<Dog, any Error> { dog in seen.withLock { $0.append("object \(dog.name) \(tagged.isCurrent)") } }
        let changes = Probe<RealmCollectionChange<Results<Dog>>, Never> { change in
            if case .update(let dogs, _, let insertions, _) = change {
                seen.withLock { $0.append("update \(dogs.count) \(insertions) \(tagged.isCurrent)") }
            }
        }
        valuePublisher(Fixture.dog(realm, 1)).map { $0 }.threadSafeReference().receive(on: tagged.queue.ocombine).subscribe(objects)
        realm.objects(Dog.self).sorted(byKeyPath: "id").changesetPublisher.filter { _ in true }
            .threadSafeReference().receive(on: tagged.queue).subscribe(changes)
        realm.refresh()
        #expect(changes.wait())   // the initial
        try realm.write {
            Fixture.dog(realm, 1).name = "moved"
            realm.create(Dog.self, value: ["id": 3])
        }
        realm.refresh()
        #expect(objects.wait())
        #expect(changes.wait())
        #expect(Set(seen.withLock { $0 }) == ["object moved true", "update 3 [2] true"])
        objects.cancel()
        changes.cancel()
    }

    @Test("receive(on:) skips a value deleted before it reaches the queue")
    func handoverOfDeleted() throws {
        let realm = try Fixture.dogs(1...1)
        let blocker = DispatchSemaphore(value: 0)
        let tagged = TaggedQueue("shoal.combine.deleted")
        tagged.queue.async { blocker.wait() }   // hold the queue until the dog is gone
        let probe = Probe<RealmCollectionChange<List<Dog>>, Never>()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "dogs": [Fixture.dog(realm, 1)]]) }
        person.dogs.changesetPublisher.receive(on: tagged.queue).subscribe(probe)
        realm.refresh()
        try realm.write { realm.delete(person) }
        blocker.signal()
        tagged.queue.sync {}
        #expect(probe.values.isEmpty)
        probe.cancel()
    }

    @Test("freeze() publishes frozen values that any queue may read, at the version the change describes")
    func freeze() throws {
        let realm = try Fixture.dogs(1...2)
        let seen = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let cancellables: [AnyCancellable] = [
            realm.objects(Dog.self).sorted(byKeyPath: "id").changesetPublisher.freeze()
                .receive(on: DispatchQueue.global().ocombine)
                .sink { change in
                    if case .update(let dogs, _, let insertions, _) = change {
                        seen.withLock { $0.append("\(dogs.isFrozen) \(dogs.map(\.id)) \(insertions)") }
                        done.signal()
                    }
                },
            changesetPublisher(Fixture.dog(realm, 1)).freeze()
                .receive(on: DispatchQueue.global().ocombine)
                .sink { change in
                    if case .change(let dog, _) = change {
                        seen.withLock { $0.append("\(dog.isFrozen) \(dog.name)") }
                        done.signal()
                    }
                },
        ]
        realm.refresh()
        try realm.write {
            realm.create(Dog.self, value: ["id": 3])
            Fixture.dog(realm, 1).name = "frozen name"
        }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).name = "later" }   // after the freeze: not seen
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(Set(seen.withLock { $0 }) == ["true [1, 2, 3] [2]", "true frozen name"])
        cancellables.forEach { $0.cancel() }
    }
}
