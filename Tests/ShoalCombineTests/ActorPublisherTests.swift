import Foundation
import OpenCombine
import Shoal
import ShoalCombine
import ShoalTestSupport
import Testing

/// An actor that publishes its Realm's dogs through `collectionPublisher`.
actor PublishingStore {
    var realm: Realm?
    var counts: [Int] = []
    var cancellable: AnyCancellable?

    func open(_ config: Realm.Configuration) async throws {
        realm = try await Realm(configuration: config, actor: self)
        cancellable = realm!.objects(Dog.self).collectionPublisher
            .sink(receiveCompletion: { _ in }, receiveValue: { [unowned self] dogs in counts.append(dogs.count) })
    }

    /// Commits a dog and waits (bounded) until the publisher shows `expected` dogs.
    func add(_ id: Int, expecting expected: Int) async throws -> [Int] {
        let realm = realm!
        try realm.write { realm.create(Dog.self, value: ["id": id]) }
        return await waitFor(expected)
    }

    /// Waits (bounded) until the publisher shows `expected` dogs: the counts seen.
    func waitFor(_ expected: Int) async -> [Int] {
        // Long: the delivery's job may queue behind every test started before
        // it in the cooperative pool; the wait ends as soon as it arrives.
        let deadline = ContinuousClock.now.advanced(by: .seconds(600))
        while counts.last != expected && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        return counts
    }

    func stop() { cancellable?.cancel() }
}

@Suite struct ActorPublisherTests {
    @Test("collectionPublisher on an actor-confined Realm publishes each commit on the actor, not one write behind")
    func actorPublisherKeepsUp() async throws {
        let config = try makeRealm().configuration
        let store = PublishingStore()
        try await store.open(config)
        #expect(await store.waitFor(0) == [0])
        #expect(try await store.add(1, expecting: 1) == [0, 1])
        #expect(try await store.add(2, expecting: 2) == [0, 1, 2])
        await store.stop()
    }
}
