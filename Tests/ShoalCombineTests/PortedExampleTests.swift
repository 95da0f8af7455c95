import Foundation
import OpenCombine
import OpenCombineDispatch
import Shoal
import ShoalCombine
import ShoalTestSupport
import Testing

/// The article's ported pipeline (PortingCombinePipelines.md) and the
/// examples of Realm's publisher documentation, written against OpenCombine
/// exactly as shown, with a serial queue standing in for the main queue
/// (no main run loop runs under `swift test`).
@Suite struct PortedExampleTests {
    /// The article's view model; `receiving` stands in for the main queue.
    final class DogList: @unchecked Sendable {
        // Safe because: `names` is only written on `receiving` and read
        // through `receiving.sync` by the test.
        private(set) var names: [String] = []
        private var cancellables = Set<AnyCancellable>()

        init(realm: Realm, queue: DispatchQueue, receiving: DispatchQueue, updated: DispatchSemaphore) {
            realm.objects(Dog.self).where { $0.age > 2 }
                .changesetPublisher(keyPaths: ["name"])
                .subscribe(on: queue)
                .freeze()
                .receive(on: receiving.ocombine)
                .sink { [weak self] change in
                    switch change {
                    case .initial(let dogs), .update(let dogs, _, _, _):
                        self?.names = dogs.map(\.name)
                    case .error(let error):
                        print(error)
                    }
                    updated.signal()
                }
                .store(in: &cancellables)
        }
    }

    @Test("the article's ported view model follows the Realm")
    func articlePipeline() throws {
        let realm = try Fixture.dogs(1...4)
        let receiving = DispatchQueue(label: "shoal.combine.example.main")
        let updated = DispatchSemaphore(value: 0)
        let model = DogList(realm: realm, queue: DispatchQueue(label: "shoal.combine.example.background"),
            receiving: receiving, updated: updated)
        #expect(updated.wait(timeout: .now() + 10) == .success)
        #expect(receiving.sync { model.names } == ["d3", "d4"])
        try realm.write { Fixture.dog(realm, 3).name = "Rex" }
        #expect(updated.wait(timeout: .now() + 10) == .success)
        #expect(receiving.sync { model.names } == ["Rex", "d4"])
    }

    @Test("Realm's documented freeze() example: frozen results received on a concurrent queue")
    func freezeExample() throws {
        let realm = try Fixture.dogs(1...2)
        let myResults = realm.objects(Dog.self)
        let received = DispatchSemaphore(value: 0)
        let counts = ResultBox<[Int]>([])
        let cancellable = myResults.collectionPublisher
            .freeze()
            .receive(on: DispatchQueue.global().ocombine)
            .sink(receiveCompletion: { _ in }, receiveValue: { frozenResults in
                counts.update { $0.append(frozenResults.count) }
                received.signal()
            })
        realm.refresh()
        #expect(received.wait(timeout: .now() + 10) == .success)
        #expect(counts.value == [2])
        cancellable.cancel()
    }

    @Test("Realm's documented threadSafeReference() example: subscribe on a background queue, receive elsewhere")
    func threadSafeReferenceExample() throws {
        let realm = try Fixture.dogs(1...1)
        let myObject = Fixture.dog(realm, 1)
        let elsewhere = DispatchQueue(label: "shoal.combine.example.receiver")
        let received = DispatchSemaphore(value: 0)
        let names = ResultBox<[String]>([])
        let cancellable = valuePublisher(myObject)
            .subscribe(on: DispatchQueue(label: "background queue"))
            .print("dog", to: Silent())
            .threadSafeReference()
            .receive(on: elsewhere)
            .sink(receiveCompletion: { _ in }, receiveValue: { object in
                names.update { $0.append(object.name) }
                received.signal()
            })
        try realm.write { myObject.name = "Fido" }
        #expect(received.wait(timeout: .now() + 10) == .success)
        #expect(names.value == ["Fido"])
        cancellable.cancel()
    }

    @Test("Realm's documented changeset examples: an object's and a list's changesets, frozen")
    func changesetExamples() throws {
        let realm = try Fixture.dogs(1...1)
        let person = try realm.write { realm.create(Person.self, value: ["id": 1]) }
        let myList = person.dogs
        let received = DispatchSemaphore(value: 0)
        let seen = ResultBox<[String]>([])
        let cancellables = [
            changesetPublisher(Fixture.dog(realm, 1))
                .freeze()
                .receive(on: DispatchQueue.global().ocombine)
                .sink { changeset in
                    if case .change(let dog, let properties) = changeset {
                        seen.update { $0.append("\(dog.isFrozen) \(properties.map(\.name))") }
                        received.signal()
                    }
                },
            myList.changesetPublisher
                .freeze()
                .receive(on: DispatchQueue.global().ocombine)
                .sink { changeset in
                    if case .update(let list, _, let insertions, _) = changeset {
                        seen.update { $0.append("\(list.isFrozen) \(insertions)") }
                        received.signal()
                    }
                },
        ]
        realm.refresh()
        try realm.write {
            Fixture.dog(realm, 1).age = 3
            myList.append(Fixture.dog(realm, 1))
        }
        realm.refresh()
        #expect(received.wait(timeout: .now() + 10) == .success)
        #expect(received.wait(timeout: .now() + 10) == .success)
        #expect(Set(seen.value) == ["true [\"age\"]", "true [0]"])
        cancellables.forEach { $0.cancel() }
    }
}

/// A value shared with a queue's sink, locked.
final class ResultBox<Value>: @unchecked Sendable {
    // Safe because: `stored` is only reached under `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

/// Where `print(_:to:)` writes in the examples: nowhere, to keep test output clean.
struct Silent: TextOutputStream {
    mutating func write(_ string: String) {}
}
