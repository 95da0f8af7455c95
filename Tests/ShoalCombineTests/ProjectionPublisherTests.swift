import Foundation
import OpenCombine
import OpenCombineDispatch
@testable import Shoal
import ShoalCombine
import ShoalTestSupport
import Testing

/// A projection of the test support's `Dog`.
final class DogNameProjection: Projection<Dog> {
    @Projected(\Dog.name) var dogName
}

/// A projection of two of `Dog`'s properties, renamed.
final class DogSummaryProjection: Projection<Dog> {
    @Projected(\Dog.name) var dogName
    @Projected(\Dog.age) var years
}

/// Realm's publishers of projections: `valuePublisher(projection)`,
/// `changesetPublisher(projection)` and `objectWillChange`.
@Suite struct ProjectionPublisherTests {
    @Test("valuePublisher emits the projection after each change of a projected property and finishes on deletion")
    func valuesOfAProjection() throws {
        let realm = try Fixture.dogs(1...2)
        let projection = realm.objects(DogNameProjection.self).filter("id == 1").first!
        var seen: [String] = []
        var finished = false
        let cancellable = valuePublisher(projection)
            .sink(receiveCompletion: { _ in finished = true }, receiveValue: { seen.append($0.dogName) })
        try realm.write { Fixture.dog(realm, 1).age = 40 }   // not projected
        realm.refresh()
        try realm.write { projection.dogName = "Rex" }
        realm.refresh()
        #expect(seen == ["Rex"])
        try realm.write { realm.delete(Fixture.dog(realm, 1)) }
        realm.refresh()
        #expect(finished)
        cancellable.cancel()
    }

    @Test("a projection's objectWillChange fires for projected properties only")
    func willChangeOfAProjection() throws {
        let realm = try Fixture.dogs(1...1)
        let projection = realm.objects(DogNameProjection.self).first!
        var count = 0
        let cancellable = projection.objectWillChange.sink { count += 1 }
        try realm.write { Fixture.dog(realm, 1).age = 40 }
        realm.refresh()
        #expect(count == 0)
        try realm.write { projection.dogName = "Rex" }
        realm.refresh()
        #expect(count == 1)
        cancellable.cancel()
    }

    @Test("changesetPublisher(projection) emits the changed projected properties under the projection's names, then finishes on deletion")
    func changesetsOfAProjection() throws {
        let realm = try Fixture.dogs(1...1)
        let projection = realm.objects(DogSummaryProjection.self).first!
        let named = Probe<ObjectChange<DogSummaryProjection>, Never>()
        let all = Probe<ObjectChange<DogSummaryProjection>, Never>()
        changesetPublisher(projection, keyPaths: ["name"]).subscribe(named)
        changesetPublisher(projection).subscribe(all)
        try realm.write { Fixture.dog(realm, 1).breed = "not projected" }
        realm.refresh()
        try realm.write { Fixture.dog(realm, 1).age = 5 }
        realm.refresh()
        try realm.write { projection.dogName = "Rex" }
        realm.refresh()
        func described(_ probe: Probe<ObjectChange<DogSummaryProjection>, Never>) -> [[String]] {
            probe.take().map { change -> [String] in
                guard case .change(let dog, let properties) = change else { return ["\(change)"] }
                return properties.map { "\($0.name): \($0.oldValue ?? "nil") -> \($0.newValue ?? "nil") (\(dog.dogName))" }
            }
        }
        #expect(described(named) == [["dogName: d1 -> Rex (Rex)"]])
        // The projection is live: it reads its current values when described.
        #expect(described(all) == [["years: 1 -> 5 (Rex)"], ["dogName: d1 -> Rex (Rex)"]])
        try realm.write { realm.delete(Fixture.dog(realm, 1)) }
        realm.refresh()
        #expect(named.isFinished && all.isFinished)
        #expect(named.values.isEmpty && all.values.isEmpty)
    }

    @Test("projection changesets freeze, observe on a queue with subscribe(on:), and hand over with threadSafeReference().receive(on:)")
    func projectionChangesetsAcrossQueues() throws {
        let realm = try Fixture.dogs(1...1)
        let projection = realm.objects(DogSummaryProjection.self).first!
        let queue = DispatchQueue(label: "shoal.combine.projection-changesets")
        let onQueue = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: onQueue, value: true)
        let seen = Locked<[String]>([])
        func probe(_ label: String) -> Probe<ObjectChange<DogSummaryProjection>, Never> {
            Probe { change in
                guard case .change(let dog, let properties) = change else { return }
                let here = DispatchQueue.getSpecific(key: onQueue) == true
                seen.withLock { $0.append("\(label) frozen:\(dog.isFrozen) \(dog.dogName) \(properties.map(\.name)) queue:\(here)") }
            }
        }
        let frozen = probe("freeze")
        let subscribed = probe("subscribe")
        let handed = probe("handover")
        changesetPublisher(projection).freeze().subscribe(frozen)
        changesetPublisher(projection).subscribe(on: queue).subscribe(subscribed)
        changesetPublisher(projection).map { $0 }.threadSafeReference().receive(on: queue).subscribe(handed)
        queue.sync {}   // the queue's observation is registered
        try realm.write { projection.dogName = "Rex" }
        realm.refresh()
        #expect(subscribed.wait() && handed.wait())
        #expect(Set(seen.withLock { $0 }) == [
            "freeze frozen:true Rex [\"dogName\"] queue:false",
            "subscribe frozen:false Rex [\"dogName\"] queue:true",
            "handover frozen:false Rex [\"dogName\"] queue:true",
        ])
        for probe in [frozen, subscribed, handed] { probe.cancel() }
    }
}
