import Foundation
import OpenCombine
import Shoal
import ShoalCombine
import ShoalTestSupport
import Testing

/// A projection of the test support's `Dog`.
final class DogNameProjection: Projection<Dog> {
    @Projected(\Dog.name) var dogName
}

/// Realm's publishers of projections: `valuePublisher(projection)` and
/// `objectWillChange`.
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
}
