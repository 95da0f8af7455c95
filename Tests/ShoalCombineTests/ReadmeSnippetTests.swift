import Foundation
import OpenCombine
import OpenCombineDispatch
import Shoal
import ShoalCombine
import ShoalTestSupport
import Testing

/// The README's Combine snippet as top-level code meets it: on the main actor,
/// where every closure it writes is main-actor isolated. A `sink` delivered on
/// any queue but the main one stops such a program (Swift 6 checks the
/// closure's isolation when it runs), so the snippet receives on the main queue.
@Suite struct ReadmeSnippetTests {
    @MainActor
    @Test("the README's Combine snippet runs as main-actor code and delivers on the main queue")
    func readmeCombineSnippet() async throws {
        let realm = try Fixture.dogs(1...5)
        var received: [RealmCollectionChange<Results<Dog>>] = []

        // The README's snippet, with `print(change)` also recording the change.
        let cancellable = realm.objects(Dog.self).where { $0.age > 3 }
            .changesetPublisher(keyPaths: ["name"])
            .subscribe(on: DispatchQueue(label: "dogs"))
            .freeze()
            .receive(on: DispatchQueue.main.ocombine)
            .sink { change in print(change); received.append(change) }

        try await Self.waitOnMainActor { received.count == 1 }
        guard case .initial(let dogs) = received.first else {
            Issue.record("expected the initial results, got \(received)")
            return
        }
        #expect(dogs.map(\.id) == [4, 5])
        #expect(dogs.isFrozen)

        try realm.write { Fixture.dog(realm, 5).name = "Rex" }
        try await Self.waitOnMainActor { received.count == 2 }
        guard case .update(let updated, _, _, let modifications) = received.last else {
            Issue.record("expected an update, got \(received)")
            return
        }
        #expect(updated.map(\.name) == ["d4", "Rex"])
        #expect(modifications == [1])
        cancellable.cancel()
    }

    /// Yields the main actor (so the main queue runs what was sent to it)
    /// until `done` holds, for at most ten seconds.
    @MainActor
    private static func waitOnMainActor(_ done: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !done() {
            guard Date() < deadline else {
                Issue.record("nothing arrived on the main queue within ten seconds")
                return
            }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}
