import Foundation
import Shoal
import ShoalTestSupport
import Testing

/// Realm API that a ported program uses, with Realm's names and semantics
/// (each named after the Realm test it follows, where there is one).
@Suite struct RealmAPICoverageTests {
    static func realm() throws -> Realm {
        try makeRealm(types: [AllTypes.self, Dog.self, Person.self])
    }

    // Realm: ListTests testReplaceRange, testRemoveClosedSubrange, testRemoveOpenSubrange, testReplaceOpenSubrange (managed and unmanaged alike).
    @Test("List's range-replaceable and offset methods, managed and unmanaged", arguments: [false, true])
    func listRangeReplaceable(managed: Bool) throws {
        let realm = try Self.realm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let list = managed ? realm.create(AllTypes.self, value: ["ints": [0, 1, 2, 3, 4, 5]]).ints : List<Int>()
        if !managed { list.append(objectsIn: 0...5) }
        list.replaceSubrange(1..<3, with: [10, 11, 12])
        #expect(Array(list) == [0, 10, 11, 12, 3, 4, 5])
        list.replaceSubrange(0...1, with: [7])
        #expect(Array(list) == [7, 11, 12, 3, 4, 5])
        list.removeSubrange(1..<3)
        #expect(Array(list) == [7, 3, 4, 5])
        list.insert(contentsOf: [8, 9], at: 1)
        #expect(Array(list) == [7, 8, 9, 3, 4, 5])
        list.removeFirst(2)
        #expect(Array(list) == [9, 3, 4, 5])
        list.removeLast(2)
        #expect(Array(list) == [9, 3])
        list.append(objectsIn: [1, 2, 6])
        list.remove(atOffsets: IndexSet([0, 2]))
        #expect(Array(list) == [3, 2, 6])
        list[0..<2] = list[1..<3]
        #expect(Array(list) == [2, 6, 6])
        list[1..<3] = list[0..<1]
        #expect(Array(list) == [2, 2])
        list.replaceSubrange(1..<2, with: [5])
        list.append(objectsIn: [7, 8])
        #expect(Array(list) == [2, 5, 7, 8])
        // SwiftUI's onMove: the moved elements keep their order, placed before the destination.
        list.move(fromOffsets: IndexSet([0, 2]), toOffset: 4)
        #expect(Array(list) == [5, 8, 2, 7])
        list.move(fromOffsets: IndexSet([3]), toOffset: 0)
        #expect(Array(list) == [7, 5, 8, 2])
        list.move(fromOffsets: IndexSet([0, 1]), toOffset: 3)
        #expect(Array(list) == [8, 7, 5, 2])
    }

    @Test("removeFirst(_:) past the end stops with Realm's message")
    func removeTooMany() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(1)
            list.removeFirst(2)
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("It is not possible to remove more objects (2) from a list than it already contains (1)."))
    }

    // Realm: MapTests testMerge.
    @Test("Map.merge keeps or combines values; asKeyValueSequence yields (key, value) pairs")
    func mapMerge() throws {
        let realm = try Self.realm()
        try realm.write {
            let object = realm.create(AllTypes.self, value: ["doubles": ["a": 1.0, "b": 2.0]])
            object.doubles.merge([(key: "b", value: 5.0), (key: "c", value: 3.0)], uniquingKeysWith: +)
            #expect(object.doubles["a"] == 1 && object.doubles["b"] == 7 && object.doubles["c"] == 3)
            let other = Map<String, Double>()
            other["a"] = 10
            other["d"] = 4
            object.doubles.merge(other) { old, _ in old }
            #expect(object.doubles["a"] == 1 && object.doubles["d"] == 4)
            let pairs = Dictionary(uniqueKeysWithValues: object.doubles.asKeyValueSequence().map { ($0.key, $0.value) })
            #expect(pairs == ["a": 1, "b": 7, "c": 3, "d": 4])
        }
    }

    // Realm: SortDescriptorTests testReversedReturnsReversedDescriptor, testDescription.
    @Test("SortDescriptor.reversed() flips the direction; its description is Realm's")
    func sortDescriptor() {
        let descriptor = SortDescriptor(keyPath: "age")
        #expect(descriptor.reversed().ascending == false && descriptor.reversed().keyPath == "age")
        #expect(descriptor.reversed().reversed() == descriptor)
        #expect(descriptor.description == "SortDescriptor(keyPath: age, direction: ascending)")
        #expect(descriptor.reversed().description == "SortDescriptor(keyPath: age, direction: descending)")
    }

    @Test("distinct() on a collection of values keeps each value once, in first-seen order")
    func distinctValues() throws {
        let realm = try Self.realm()
        let object = try realm.write { realm.create(AllTypes.self, value: ["ints": [3, 1, 3, 2, 1]]) }
        #expect(Array(object.ints.distinct()) == [3, 1, 2])
    }

    // Realm: ListTests testUnmanagedListComparison, MapTests testUnmanagedMapComparison, RealmCollectionTypeTests testEquatability.
    @Test("collections are equal when they are the same managed property, or unmanaged with equal elements")
    func equality() throws {
        let a = List<Int>(), b = List<Int>()
        #expect(a == b && a.isEqual(b))
        a.append(objectsIn: [1, 2])
        b.append(objectsIn: [1, 2])
        #expect(a == b)
        b.append(3)
        #expect(a != b && !a.isEqual(b) && !a.isEqual("x"))
        let rex = Dog(), fido = Dog()
        let x = List<Dog>(), y = List<Dog>()
        x.append(rex)
        y.append(fido)
        #expect(x != y)
        y.removeAll()
        y.append(rex)
        #expect(x == y)
        let m = Map<String, Int>(), n = Map<String, Int>()
        m["k"] = 1
        n["k"] = 1
        #expect(m == n)
        n["k"] = 2
        #expect(m != n)
        let s = MutableSet<String>(), t = MutableSet<String>()
        #expect(s == t)

        let realm = try Self.realm()
        let (first, second) = try realm.write {
            (realm.create(AllTypes.self, value: ["ints": [1]]), realm.create(AllTypes.self, value: ["ints": [1]]))
        }
        let again = try #require(realm.objects(AllTypes.self).first)
        #expect(first.ints == again.ints && first.ints.isEqual(again.ints))
        #expect(first.ints != second.ints)
        #expect(first.ints != a)
        #expect(first.doubles == again.doubles && first.dates == again.dates)
    }

    // As Realm's unmanaged collections do (RLMArray and RLMSet compare unmanaged objects by identity).
    @Test("unmanaged sets and lists of unmanaged objects compare the objects by identity")
    func unmanagedObjectsByIdentity() {
        let rex = Dog(), fido = Dog()
        let set = MutableSet<Dog>()
        set.insert(rex)
        set.insert(fido)
        set.insert(rex)
        #expect(set.count == 2 && set.contains(rex) && set.contains(fido) && !set.contains(Dog()))
        set.remove(rex)
        #expect(set.count == 1 && !set.contains(rex))
        let list = List<Dog>()
        list.append(objectsIn: [rex, fido])
        #expect(list.index(of: fido) == 1 && list.index(of: Dog()) == nil)
        let anys = List<AnyRealmValue>()
        anys.append(objectsIn: [.object(rex), .int(3)])
        #expect(anys.index(of: .object(rex)) == 0 && anys.index(of: .int(3)) == 1 && anys.index(of: .object(fido)) == nil)
    }

    // Realm: CombineTests (ObjectKeyIdentifiable ids are stable for managed objects).
    @Test("ObjectKeyIdentifiable gives every accessor of a managed object the same id")
    func objectKeyIdentifiable() throws {
        final class Item: Object, ObjectKeyIdentifiable {
            @Persisted(primaryKey: true) var key: Int
        }
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [Item.self]
        let realm = try Realm(configuration: config)
        let unmanaged = Item()
        #expect(unmanaged.id == unmanaged.id && unmanaged.id != Item().id)
        try realm.write {
            realm.create(Item.self, value: ["key": 1])
            realm.create(Item.self, value: ["key": 2])
        }
        let one = try #require(realm.object(ofType: Item.self, forPrimaryKey: 1))
        let again = try #require(realm.objects(Item.self).filter("key == 1").first)
        let two = try #require(realm.object(ofType: Item.self, forPrimaryKey: 2))
        #expect(one !== again && one.id == again.id)
        #expect(one.id != two.id)
    }

    @Test("writeCopy(toFile:) and writeCopy(configuration:) write a database that opens with the same data; fileExists(for:); schemaVersionAtURL reads its version")
    func writeCopyAndSchemaVersion() throws {
        let url = temporaryDatabaseURL()
        var config = fileConfiguration(url, types: [Dog.self, Person.self])
        config.schemaVersion = 4
        let copy = url.deletingLastPathComponent().appendingPathComponent("copy.realm")
        do {
            let realm = try Realm(configuration: config)
            try realm.write { for i in 0..<5 { realm.create(Dog.self, value: ["id": i, "name": "d\(i)"]) } }
            try realm.writeCopy(toFile: copy)
            #expect(throws: ShoalError.self) { try realm.writeCopy(toFile: copy) }
        }
        #expect(Realm.fileExists(for: config) && !Realm.fileExists(for: Realm.Configuration(inMemoryIdentifier: "x")))
        var elsewhere = config
        elsewhere.fileURL = url.deletingLastPathComponent().appendingPathComponent("by-config.realm")
        #expect(!Realm.fileExists(for: elsewhere))
        try Realm(configuration: config).writeCopy(configuration: elsewhere)
        #expect(Realm.fileExists(for: elsewhere))
        #expect(try Realm(configuration: elsewhere).objects(Dog.self).count == 5)
        #expect(try schemaVersionAtURL(url) == 4)
        #expect(try schemaVersionAtURL(copy) == 4)
        #expect(throws: ShoalError.self) { try schemaVersionAtURL(url.deletingLastPathComponent().appendingPathComponent("none.realm")) }
        var copyConfig = config
        copyConfig.fileURL = copy
        let reopened = try Realm(configuration: copyConfig)
        #expect(reopened.objects(Dog.self).sorted(byKeyPath: "id").map(\.name) == ["d0", "d1", "d2", "d3", "d4"])
        try reopened.write { reopened.create(Dog.self, value: ["id": 9]) }
        #expect(reopened.objects(Dog.self).count == 6)
    }

    @Test("the full Configuration initializer: migrationBlock, shouldCompactOnLaunch and seedFilePath take effect")
    func configurationInitializer() throws {
        let seed = temporaryDatabaseURL("seed")
        do {
            let realm = try Realm(configuration: fileConfiguration(seed, types: [Dog.self, Person.self]))
            try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Seeded"]) }
        }
        let url = temporaryDatabaseURL("app")
        let asked = LockedFlag()
        let config = Realm.Configuration(
            fileURL: url, schemaVersion: 0, migrationBlock: { _, _ in }, deleteRealmIfMigrationNeeded: false,
            shouldCompactOnLaunch: { total, used in asked.set(); return total > used },
            objectTypes: [Dog.self, Person.self], seedFilePath: seed)
        let realm = try Realm(configuration: config)
        #expect(realm.objects(Dog.self).first?.name == "Seeded")
        #expect(asked.value)
        #expect(config.migrationBlock != nil)
        let missingSeed = Realm.Configuration(fileURL: temporaryDatabaseURL("other"), objectTypes: [Dog.self, Person.self],
            seedFilePath: URL(fileURLWithPath: "/nonexistent/seed.realm"))
        #expect(throws: ShoalError.self) { try Realm(configuration: missingSeed) }
    }

    // Realm's typed-query API (Query.swift): containsAny(in:), contains(_: Range), notEquals(_:options:).
    @Test("typed-query containsAny(in:), contains(Range) and notEquals(_:options:)")
    func typedQueries() throws {
        let (_, dogs) = try PublicAPITests.dogs()
        #expect(dogs.where { $0.age.contains(1..<3) }.map(\.id) == dogs.filter("age >= 1 AND age < 3").map(\.id))
        #expect(dogs.where { $0.name.notEquals("DOG1", options: [.caseInsensitive]) }.count == dogs.filter("name !=[c] 'DOG1'").count)
        let realm = try Self.realm()
        try realm.write {
            realm.create(Dog.self, value: ["id": 1, "tags": ["good", "small"], "scores": ["a": 1.0]])
            realm.create(Dog.self, value: ["id": 2, "tags": ["big"], "scores": ["a": 5.0]])
            realm.create(Dog.self, value: ["id": 3])
        }
        let all = realm.objects(Dog.self)
        #expect(all.where { $0.tags.containsAny(in: ["good", "big"]) }.map(\.id).sorted() == [1, 2])
        #expect(all.where { $0.tags.containsAny(in: ["small"]) }.map(\.id) == [1])
        #expect(all.where { $0.scores.containsAny(in: [5.0, 9.0]) }.map(\.id) == [2])
    }

    @Test("KVC union operators: @unionOfObjects, @distinctUnionOfObjects, @unionOfArrays, @distinctUnionOfArrays")
    func kvcUnions() throws {
        let realm = try Self.realm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            realm.create(Dog.self, value: ["id": 1, "name": "Rex", "owner": ann])
            realm.create(Dog.self, value: ["id": 2, "name": "Rex"])
            realm.create(Dog.self, value: ["id": 3, "name": "Fido", "owner": ann])
            realm.create(AllTypes.self, value: ["ints": [1, 2]])
            realm.create(AllTypes.self, value: ["ints": [2, 3]])
        }
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "id")
        #expect(dogs.value(forKeyPath: "@unionOfObjects.name") as? [String] == ["Rex", "Rex", "Fido"])
        #expect(dogs.value(forKeyPath: "@distinctUnionOfObjects.name") as? [String] == ["Rex", "Fido"])
        #expect((dogs.value(forKeyPath: "@unionOfObjects.owner") as? [Any])?.count == 2)
        #expect((dogs.value(forKeyPath: "@distinctUnionOfObjects.owner") as? [Any])?.count == 1)
        let all = realm.objects(AllTypes.self)
        #expect(all.value(forKeyPath: "@unionOfArrays.ints") as? [Int] == [1, 2, 2, 3])
        #expect(all.value(forKeyPath: "@distinctUnionOfArrays.ints") as? [Int] == [1, 2, 3])
    }

    // Realm: ObjectTests testDescription, RealmCollectionTypeTests testDescription.
    @Test("descriptions are Realm's: tab-indented properties, bare strings, nested objects and collections indented one level deeper")
    func descriptions() throws {
        let realm = try Self.realm()
        let dog = try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann", "city": "Oslo"])
            return realm.create(Dog.self, value: ["id": 7, "name": "Rex", "age": 3, "tags": ["good"], "owner": ann])
        }
        let text = dog.description
        #expect(text.hasPrefix("Dog {\n\tid = 7;\n\tname = Rex;\n\tage = 3;\n\tbreed = ;\n"), "\(text)")
        #expect(text.contains("\ttags = MutableSet<string> <0x"), "\(text)")
        #expect(text.contains("> (\n\t\t[0] good\n\t);\n"), "\(text)")
        #expect(text.contains("\towner = Person {\n\t\tid = 1;\n\t\tname = Ann;\n\t\tcity = Oslo;\n\t\tdogs = List<Dog> <0x"), "\(text)")
        #expect(text.hasSuffix("\n\t};\n}"), "\(text)")
        let list = List<Int>()
        #expect(list.description.range(of: #"^List<int> <0x[0-9a-f]+> \(\n\n\)$"#, options: .regularExpression) != nil, "\(list.description)")
        list.append(objectsIn: [4, 5])
        #expect(list.description.hasSuffix(" (\n\t[0] 4,\n\t[1] 5\n)"), "\(list.description)")
        let results = realm.objects(Dog.self)
        #expect(results.description.hasPrefix("Results<Dog> <0x") && results.description.contains("(\n\t[0] Dog {\n\t\tid = 7;"))
        let unset = AllTypes()
        #expect(unset.description.contains("\toptString = (null);\n") && unset.description.contains("\tbool = 0;\n"))
        #expect(unset.description.contains("\tdate = 1970-01-01 00:00:00 +0000;\n"), "\(unset.description)")
    }
}

/// A flag set from a `@Sendable` closure.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.lock(); flag = true; lock.unlock() }
    var value: Bool { lock.lock(); defer { lock.unlock() }; return flag }
}
