import Foundation
import Shoal
import Testing

struct Celsius: CustomPersistable, Equatable {
    var degrees: Double
    init(persistedValue: Double) { degrees = persistedValue }
    var persistableValue: Double { degrees }
}

/// A web address stored as its string; a string that is not one does not convert.
struct WebAddress: FailableCustomPersistable, Equatable {
    let url: URL
    init?(persistedValue: String) {
        guard persistedValue.hasPrefix("https://"), let url = URL(string: persistedValue) else { return nil }
        self.url = url
    }
    var persistableValue: String { url.absoluteString }
}

final class Reading: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var temperature: Celsius
    @Persisted var source: WebAddress?
    @Persisted var history: List<Celsius>
}

/// A class whose non-optional failable property's default does not convert.
final class Bookmark: Object {
    @Persisted var address: WebAddress
}

// Realm: the types of CustomPersistableTestObjects.swift are stored, read back and queried as their persisted type.
@Suite struct CustomPersistableTests {
    @Test("custom persistable values are stored, read, queried and sorted as their persisted type, and survive reopening")
    func storedAsPersistedType() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-custom-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = Realm.Configuration(fileURL: directory.appendingPathComponent("db.realm"))
        config.objectTypes = [Reading.self]
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let reading = Reading()
                reading.id = 1
                reading.temperature = Celsius(persistedValue: 21.5)
                reading.source = WebAddress(persistedValue: "https://example.org/a")
                reading.history.append(objectsIn: [Celsius(persistedValue: 19), Celsius(persistedValue: 20)])
                realm.add(reading)
                realm.create(Reading.self, value: ["id": 2, "temperature": 30.0, "source": "not an address"])
            }
        }
        let realm = try Realm(configuration: config)
        let one = try #require(realm.object(ofType: Reading.self, forPrimaryKey: 1))
        #expect(one.temperature == Celsius(persistedValue: 21.5))
        #expect(one.source?.url.absoluteString == "https://example.org/a")
        #expect(one.history.map(\.degrees) == [19, 20])
        // A stored string that does not convert reads as nil in an optional property.
        #expect(realm.object(ofType: Reading.self, forPrimaryKey: 2)?.source == nil)
        let readings = realm.objects(Reading.self)
        #expect(readings.where { $0.temperature > Celsius(persistedValue: 25) }.map(\.id) == [2])
        #expect(readings.filter("temperature < 25").map(\.id) == [1])
        #expect(readings.sorted(byKeyPath: "temperature", ascending: false).map(\.id) == [2, 1])
        #expect(Reading().temperature == Celsius(persistedValue: 0))
    }

    // Realm: CustomObjectCreationTests, ModernObjectAccessorTests (the message for a failed conversion).
    @Test("a non-optional failable value that does not convert stops with Realm's message")
    func failedConversionStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Bookmark().address
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("Failed to convert persisted value '' to type 'WebAddress' in a non-optional context."))
    }
}
