import Foundation
import Shoal
import Testing

/// Realm's `SwiftStringObject`, as Realm's mixed-collection tests link to it.
final class MixedText: Object {
    @Persisted var stringCol: String
}

/// Realm's `AnyRealmTypeObject` (a `RealmProperty<AnyRealmValue>`) and a
/// `@Persisted` mixed property, as `ModernAllTypesObject.anyCol`.
final class MixedHolder: Object {
    let anyValue = RealmProperty<AnyRealmValue>()
    @Persisted var anyCol: AnyRealmValue
    @Persisted var name: String
    @Persisted var mixedList: List<AnyRealmValue>
}

// Realm 10.51's mixed collections: MixedCollectionTest.swift and the mixed
// queries of QueryTests.swift, in Realm's own words where they cover a case.
@Suite struct MixedCollectionTests {
    static func configuration() -> Realm.Configuration {
        Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [MixedHolder.self, MixedText.self])
    }
    static func realm() throws -> Realm { try Realm(configuration: configuration()) }

    static func text(_ s: String) -> MixedText {
        let object = MixedText()
        object.stringCol = s
        return object
    }

    // MARK: Dictionaries

    @Test("testAnyMixedDictionary: a dictionary of every kind set unmanaged, added, set managed, created and read from results")
    func anyMixedDictionary() throws {
        let so = Self.text("hello")
        let d = Date(timeIntervalSince1970: 1_000)
        let oid = ObjectId.generate()
        let uuid = UUID()
        let dictionary: [String: AnyRealmValue] = [
            "key1": .string("hello"), "key2": .bool(false), "key3": .int(234), "key4": .float(789.123),
            "key5": .double(12345.678901), "key6": .data(Data("a".utf8)), "key7": .date(d), "key8": .object(so),
            "key9": .objectId(oid), "key10": .uuid(uuid), "key11": .decimal128(Decimal128(number: 567)),
        ]
        func check(_ o: MixedHolder) {
            let map = o.anyValue.value.dictionaryValue
            #expect(map?["key1"] == .string("hello"))
            #expect(map?["key2"]?.boolValue == false)
            #expect(map?["key3"]?.intValue == 234)
            #expect(map?["key4"]?.floatValue == 789.123)
            #expect(map?["key5"]?.doubleValue == 12345.678901)
            #expect(map?["key6"]?.dataValue == Data("a".utf8))
            #expect(map?["key7"]?.dateValue == d)
            #expect(map?["key8"]?.object(MixedText.self)?.stringCol == "hello")
            #expect(map?["key9"]?.objectIdValue == oid)
            #expect(map?["key10"]?.uuidValue == uuid)
            #expect(map?["key11"]?.decimal128Value == Decimal128(number: 567))
            #expect(map?.count == 11)
        }
        let o = MixedHolder()
        o.anyValue.value = .fromDictionary(dictionary)
        check(o)
        o.anyValue.value = .fromDictionary(["key": .none])
        #expect(o.anyValue.value.dictionaryValue?["key"] == AnyRealmValue.none)

        let realm = try Self.realm()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.value.dictionaryValue?["key"] == AnyRealmValue.none)
        #expect(o.anyValue.value.dictionaryValue?.realm != nil)

        try realm.write { o.anyValue.value = .fromDictionary(dictionary) }
        check(o)
        try realm.write {
            let created = realm.create(MixedHolder.self, value: ["anyValue": dictionary])
            check(created)
        }
        check(try #require(realm.objects(MixedHolder.self).last))
        // The linked object was added with the dictionary that holds it.
        #expect(realm.objects(MixedText.self).count == 1)
    }

    @Test("testAnyMixedDictionaryUpdateAndDelete: entries set and removed unmanaged and in a write")
    func anyMixedDictionaryUpdateAndDelete() throws {
        let so = Self.text("hello")
        let o = MixedHolder()
        o.anyValue.value = .fromDictionary(["key1": .string("hello"), "key2": .bool(false), "key3": .int(234)])
        o.anyValue.value.dictionaryValue?["key1"] = .object(so)
        o.anyValue.value.dictionaryValue?["key2"] = .data(Data("a".utf8))
        #expect(o.anyValue.value.dictionaryValue?["key1"]?.object(MixedText.self)?.stringCol == "hello")

        let realm = try Self.realm()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.value.dictionaryValue?["key1"]?.object(MixedText.self)?.stringCol == "hello")
        #expect(o.anyValue.value.dictionaryValue?["key2"] == .data(Data("a".utf8)))

        try realm.write {
            o.anyValue.value.dictionaryValue?["key1"] = .double(12345.678901)
            o.anyValue.value.dictionaryValue?["key2"] = .float(789.123)
        }
        #expect(o.anyValue.value.dictionaryValue?["key1"] == .double(12345.678901))
        #expect(o.anyValue.value.dictionaryValue?["key2"] == .float(789.123))

        let result = try #require(realm.objects(MixedHolder.self).last)
        try realm.write {
            result.anyValue.value.dictionaryValue?["key1"] = nil
            result.anyValue.value.dictionaryValue?["key2"] = nil
        }
        #expect(result.anyValue.value.dictionaryValue?["key1"] == nil)
        #expect(result.anyValue.value.dictionaryValue?["key2"] == nil)
        #expect(result.anyValue.value.dictionaryValue?.keys == ["key3"])
        try realm.write { result.anyValue.value.dictionaryValue?.removeAll() }
        #expect(result.anyValue.value.dictionaryValue?.count == 0)
    }

    @Test("testAnyMixedNestedDictionary: dictionaries four deep, from fromDictionary and from Swift dictionary literals in create")
    func anyMixedNestedDictionary() throws {
        let so = Self.text("hello")
        let sub2 = AnyRealmValue.fromDictionary(["key3": .object(so)])
        let sub3 = AnyRealmValue.fromDictionary(["key2": sub2])
        let sub4 = AnyRealmValue.fromDictionary(["key1": sub3])
        func deep(_ o: MixedHolder) -> String? {
            o.anyValue.value.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue?["key2"]?
                .dictionaryValue?["key3"]?.object(MixedText.self)?.stringCol
        }
        let o = MixedHolder()
        o.anyValue.value = .fromDictionary(["key0": sub4, "key4": .bool(false)])
        #expect(deep(o) == "hello")

        let realm = try Self.realm()
        try realm.write { realm.add(o) }
        #expect(deep(o) == "hello")
        #expect(o.anyValue.value.dictionaryValue?["key4"]?.boolValue == false)

        try realm.write {
            let d: [String: Any] = ["key0": ["key1": ["key2": ["key3": AnyRealmValue.object(so)]]], "key4": AnyRealmValue.bool(false)]
            let created = realm.create(MixedHolder.self, value: ["anyValue": d])
            #expect(deep(created) == "hello")
        }
        #expect(deep(try #require(realm.objects(MixedHolder.self).last)) == "hello")
    }

    // MARK: Lists

    @Test("testAnyMixedList: a list of every kind set unmanaged, added, set managed, created and read from results")
    func anyMixedList() throws {
        let so = Self.text("hello")
        let d = Date(timeIntervalSince1970: 2_000)
        let oid = ObjectId.generate()
        let list: [AnyRealmValue] = [
            .string("hello"), .bool(false), .int(234), .float(789.123), .double(12345.678901), .data(Data("a".utf8)),
            .date(d), .object(so), .objectId(oid), .uuid(UUID()), .decimal128(Decimal128(number: 567)),
        ]
        func check(_ o: MixedHolder) {
            let l = o.anyValue.value.listValue
            #expect(l?.count == 11)
            #expect(l?[0] == .string("hello"))
            #expect(l?[2].intValue == 234)
            #expect(l?[6].dateValue == d)
            #expect(l?[7].object(MixedText.self)?.stringCol == "hello")
            #expect(l?[8].objectIdValue == oid)
            #expect(l?[10].decimal128Value == Decimal128(number: 567))
        }
        let o = MixedHolder()
        o.anyValue.value = .fromArray(list)
        check(o)
        o.anyValue.value = .fromArray([.none])
        #expect(o.anyValue.value.listValue?[0] == AnyRealmValue.none)

        let realm = try Self.realm()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.value.listValue?[0] == AnyRealmValue.none)
        try realm.write { o.anyValue.value = .fromArray(list) }
        check(o)
        try realm.write { check(realm.create(MixedHolder.self, value: ["anyValue": list])) }
        check(try #require(realm.objects(MixedHolder.self).last))
    }

    @Test("testAnyMixedListUpdateAndDelete: elements replaced unmanaged and in a write, then removed")
    func anyMixedListUpdateAndDelete() throws {
        let o = MixedHolder()
        o.anyValue.value = .fromArray([.string("hello"), .bool(false), .int(234)])
        o.anyValue.value.listValue?[0] = .object(Self.text("hello"))
        o.anyValue.value.listValue?[1] = .data(Data("a".utf8))
        #expect(o.anyValue.value.listValue?[0].object(MixedText.self)?.stringCol == "hello")

        let realm = try Self.realm()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.value.listValue?[1] == .data(Data("a".utf8)))
        try realm.write {
            o.anyValue.value.listValue?[0] = .double(12345.678901)
            o.anyValue.value.listValue?[1] = .float(789.123)
        }
        #expect(o.anyValue.value.listValue?[0] == .double(12345.678901))
        #expect(o.anyValue.value.listValue?[1] == .float(789.123))

        let result = try #require(realm.objects(MixedHolder.self).last)
        #expect(result.anyValue.value.listValue?.count == 3)
        try realm.write {
            result.anyValue.value.listValue?.remove(at: 0)
            result.anyValue.value.listValue?.remove(at: 0)
        }
        #expect(result.anyValue.value.listValue?[0] == .int(234))
        #expect(result.anyValue.value.listValue?.count == 1)
        try realm.write {
            let list = try #require(result.anyValue.value.listValue)
            list.append(.int(1))
            list.insert(.int(0), at: 0)
            list.move(from: 0, to: 2)
            list.swapAt(0, 1)
        }
        #expect(result.anyValue.value.listValue.map(Array.init) == [.int(1), .int(234), .int(0)])
        try realm.write { result.anyValue.value.listValue?.removeAll() }
        #expect(result.anyValue.value.listValue?.isEmpty == true)
    }

    @Test("testAnyMixedNestedArray and testMixedNestedCollection: lists and dictionaries nested in each other, and from array literals in create")
    func mixedNestedCollection() throws {
        let so = Self.text("hello")
        let subArray2 = AnyRealmValue.fromArray([.object(so)])
        let subDict2 = AnyRealmValue.fromDictionary(["key1": subArray2])
        let subArray3 = AnyRealmValue.fromArray([subArray2, subDict2])
        let subDict3 = AnyRealmValue.fromDictionary(["key2": subArray3])
        let subArray4 = AnyRealmValue.fromArray([subDict3])
        let root = AnyRealmValue.fromDictionary(["key0": .fromDictionary(["key3": subArray4])])
        func check(_ o: MixedHolder) {
            let base = o.anyValue.value.dictionaryValue?["key0"]?.dictionaryValue?["key3"]?.listValue
            #expect(base?[0].dictionaryValue?["key2"]?.listValue?[0].listValue?[0].object(MixedText.self)?.stringCol == "hello")
            #expect(base?[0].dictionaryValue?["key2"]?.listValue?[1].dictionaryValue?["key1"]?.listValue?[0]
                .object(MixedText.self)?.stringCol == "hello")
        }
        let o = MixedHolder()
        o.anyValue.value = root
        check(o)
        let realm = try Self.realm()
        try realm.write { realm.add(o) }
        check(o)
        try realm.write {
            let d: [String: Any] = ["key0": ["key3": [["key2": [[AnyRealmValue.object(so)], ["key1": [AnyRealmValue.object(so)]]]]]]]
            check(realm.create(MixedHolder.self, value: ["anyValue": d]))
        }
        check(try #require(realm.objects(MixedHolder.self).last))
        try realm.write {
            let created = realm.create(MixedHolder.self, value: ["anyValue": [[[[AnyRealmValue.object(so)]]], AnyRealmValue.bool(false)]])
            #expect(created.anyValue.value.listValue?[0].listValue?[0].listValue?[0].listValue?[0].object(MixedText.self)?.stringCol == "hello")
            #expect(created.anyValue.value.listValue?[1].boolValue == false)
        }
    }

    @Test("a change deep inside a managed nested collection is written to the property, and to the same place of other readers")
    func deepChangesPersist() throws {
        let realm = try Self.realm()
        let o = MixedHolder()
        o.anyCol = .fromDictionary(["a": .fromArray([.fromDictionary(["b": .int(1)])])])
        try realm.write { realm.add(o) }
        let inner = try #require(o.anyCol.dictionaryValue?["a"]?.listValue?[0].dictionaryValue)
        try realm.write {
            inner["b"] = .int(2)
            inner["c"] = .fromArray([.string("x")])
            inner["c"]?.listValue?.append(.string("y"))
        }
        let other = try Realm(configuration: realm.configuration)
        let read = try #require(other.objects(MixedHolder.self).first?.anyCol)
        #expect(read.dictionaryValue?["a"]?.listValue?[0].dictionaryValue?["b"] == .int(2))
        #expect(read.dictionaryValue?["a"]?.listValue?[0].dictionaryValue?["c"]?.listValue.map(Array.init) == [.string("x"), .string("y")])
        #expect(inner.keys == ["b", "c"])
    }

    // MARK: Equality

    @Test("testMixedCollectionEquality: unmanaged collections are equal by their elements, managed ones by being the same collection")
    func mixedCollectionEquality() throws {
        let so = Self.text("hello")
        let dictionary: [String: AnyRealmValue] = ["key0": .fromDictionary(["key5": .fromArray([.object(so), .fromDictionary(["k": .int(1)])])])]
        #expect(AnyRealmValue.fromDictionary([:]) == AnyRealmValue.fromDictionary([:]))
        #expect(AnyRealmValue.fromDictionary(dictionary) == AnyRealmValue.fromDictionary(dictionary))
        var dictionary2 = dictionary
        dictionary2["newKey"] = .bool(false)
        #expect(AnyRealmValue.fromDictionary(dictionary) != AnyRealmValue.fromDictionary(dictionary2))
        let anyValue = AnyRealmValue.fromDictionary(dictionary)
        let anyValue2 = AnyRealmValue.fromDictionary(dictionary)
        anyValue2.dictionaryValue?["newKey"] = .bool(false)
        #expect(anyValue != anyValue2)
        #expect(AnyRealmValue.fromArray([.int(1)]) == AnyRealmValue.fromArray([.int(1)]))
        #expect(AnyRealmValue.fromArray([.int(1)]) != AnyRealmValue.fromDictionary(["0": .int(1)]))

        let mixedObject = MixedHolder()
        mixedObject.anyCol = anyValue
        #expect(mixedObject.anyCol == AnyRealmValue.fromDictionary(dictionary))
        let realm = try Self.realm()
        try realm.write { realm.add(mixedObject) }
        let mixedObject2 = mixedObject
        #expect(mixedObject.anyCol == mixedObject2.anyCol)
        #expect(mixedObject.anyCol.dictionaryValue?["key0"] == mixedObject2.anyCol.dictionaryValue?["key0"])
        let mixedObject3 = MixedHolder()
        mixedObject3.anyCol = .fromDictionary(dictionary)
        try realm.write { realm.add(mixedObject3) }
        #expect(mixedObject.anyCol != mixedObject3.anyCol)
        #expect(mixedObject.anyCol.dictionaryValue?["key0"] != mixedObject3.anyCol.dictionaryValue?["key0"])
        #expect(mixedObject.anyCol.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[1]
            != mixedObject3.anyCol.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[1])
        // Different places of one object are different collections.
        #expect(mixedObject.anyCol != mixedObject.anyCol.dictionaryValue?["key0"])
    }

    // MARK: Notifications

    @Test("testMixedCollectionObjectNotifications: an object's observer reports the mixed property for every nested change")
    func mixedCollectionObjectNotifications() throws {
        let realm = try Self.realm()
        let o = MixedHolder()
        try realm.write { realm.add(o) }
        var reported: [[String]] = []
        let token = o.observe { change in
            if case .change(_, let properties) = change { reported.append(properties.map(\.name)) }
        }
        defer { token.invalidate() }
        let dictionary: [String: AnyRealmValue] = ["key0": .fromDictionary(["key1": .fromArray([.fromArray([.int(3)])])])]
        let changes: [() -> Void] = [
            { o.anyValue.value = .fromDictionary(dictionary) },
            { o.anyValue.value.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?[0].listValue?[0] = .bool(true) },
            { o.anyValue.value.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?.append(.float(33.33)) },
            { o.anyValue.value.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?.removeLast() },
            { o.anyValue.value.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?.removeAll() },
            { o.anyValue.value.dictionaryValue?["key0"]?.dictionaryValue?["key2"] = .string("nowhere") },
            { o.anyValue.value.dictionaryValue?["key0"]?.dictionaryValue?["key2"] = nil },
            { o.anyValue.value.dictionaryValue?.removeAll() },
        ]
        for change in changes {
            try realm.write { change() }
            realm.refresh()
        }
        #expect(reported == Array(repeating: ["anyValue"], count: changes.count))
        // A change to another property is not the mixed one.
        try realm.write { o.name = "x" }
        realm.refresh()
        #expect(reported.last == ["name"])
    }

    // MARK: Enumeration and reassignment

    @Test("testEnumerationNestedCollection: iterating nested lists and dictionaries visits every value, and iterated collections are live")
    func enumerationNestedCollection() throws {
        let so = Self.text("hello")
        var nested: AnyRealmValue = .fromArray([.object(so)])
        for i in 0..<5 { nested = .fromArray([.fromDictionary(["key\(i)": nested])]) }
        let o = MixedHolder()
        o.anyValue.value = .fromDictionary(["key0": nested])
        let realm = try Self.realm()
        try realm.write { realm.add(o) }

        var count = 0
        var leaves = 0
        func visit(_ value: AnyRealmValue) {
            count += 1
            switch value {
            case .list(let l): for item in l { visit(item) }
            case .dictionary(let d): for (_, item) in d.asKeyValueSequence() { visit(item) }
            default: leaves += 1
            }
        }
        visit(o.anyValue.value)
        #expect(count == 13)
        #expect(leaves == 1)

        // An element handed out by iteration writes to its place.
        try realm.write {
            for item in try #require(o.anyValue.value.dictionaryValue?["key0"]?.listValue) {
                item.dictionaryValue?["added"] = .int(7)
            }
        }
        #expect(o.anyValue.value.dictionaryValue?["key0"]?.listValue?[0].dictionaryValue?["added"] == .int(7))
    }

    @Test("testReassignToMixedList and testReassignToMixedDictionary: a managed nested value stored again is copied into its new place")
    func reassignToMixedCollections() throws {
        let mixedObject = MixedHolder()
        mixedObject.anyValue.value = .fromArray([.bool(true), .fromDictionary(["key": .int(12)]), .float(13.12)])
        let realm = try Self.realm()
        try realm.write { realm.add(mixedObject) }
        let list = try #require(mixedObject.anyValue.value.listValue)
        #expect(list[1].dictionaryValue?["key"] == .int(12))
        try realm.write { list.append(.fromArray([.double(20.20), .string("hello")])) }
        #expect(list[3].listValue?[0] == .double(20.20))
        try realm.write { list.append(list[0]) }
        #expect(list[4] == .bool(true))
        // Realm's self-assignment of a nested collection is a copy here.
        try realm.write { list.append(list[3]) }
        #expect(list[5].listValue?[1] == .string("hello"))
        try realm.write { list[1] = .fromDictionary(["new-key": .int(3)]) }
        #expect(list[1].dictionaryValue?["new-key"] == .int(3))

        let dictionaryObject = MixedHolder()
        dictionaryObject.anyCol = .fromDictionary(["key1": .bool(true), "key2": .fromDictionary(["key4": .int(12)])])
        try realm.write { realm.add(dictionaryObject) }
        let map = try #require(dictionaryObject.anyCol.dictionaryValue)
        try realm.write { map["key6"] = map["key2"] }
        #expect(map["key6"]?.dictionaryValue?["key4"] == .int(12))
        try realm.write { map["key2"]?.dictionaryValue?["key4"] = .int(13) }
        #expect(map["key6"]?.dictionaryValue?["key4"] == .int(12))
        try realm.write { map["key7"] = .fromArray([.string("hello"), .double(20.20)]) }
        #expect(map["key7"]?.listValue?[0] == .string("hello"))
    }

    @Test("testCollectionReassign: assigning a new dictionary replaces the old one, and a list read from the old value no longer reads it")
    func collectionReassign() throws {
        let o = MixedHolder()
        o.anyValue.value = .fromDictionary(["key1": .string("hello"), "key2": .bool(false)])
        let realm = try Self.realm()
        try realm.write { realm.add(o) }
        let old = try #require(o.anyValue.value.dictionaryValue)
        try realm.write { o.anyValue.value = .fromDictionary(["key1": .string("adios")]) }
        #expect(o.anyValue.value.dictionaryValue?["key1"] == .string("adios"))
        #expect(o.anyValue.value.dictionaryValue?["key2"] == nil)
        // The old map names the property's dictionary, which now holds the new entries.
        #expect(old["key1"] == .string("adios"))
        try realm.write { o.anyValue.value = .int(1) }
        #expect(old.count == 0)
        #expect(o.anyValue.value == .int(1))
    }

    // MARK: Persistence

    @Test("nested collections survive reopening a file-backed Realm, from the log and from a compacted snapshot")
    func persistence() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-mixed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = Realm.Configuration(fileURL: directory.appendingPathComponent("db.realm"))
        config.objectTypes = [MixedHolder.self, MixedText.self]
        func check(_ realm: Realm) throws {
            let o = try #require(realm.objects(MixedHolder.self).first)
            #expect(o.anyCol.dictionaryValue?["list"]?.listValue.map(Array.init) == [.int(1), .string("two"), .int(3)])
            #expect(o.anyCol.dictionaryValue?["deep"]?.dictionaryValue?["x"]?.listValue?[0].object(MixedText.self)?.stringCol == "linked")
            #expect(o.anyValue.value.listValue?[0].dictionaryValue?["k"] == .decimal128(Decimal128(number: 5)))
            #expect(o.anyValue.value.listValue?.count == 1)
        }
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let o = MixedHolder()
                o.anyCol = .fromDictionary(["list": .fromArray([.int(1), .string("two")]),
                                            "deep": .fromDictionary(["x": .fromArray([.object(Self.text("linked"))])])])
                o.anyValue.value = .fromArray([.fromDictionary(["k": .decimal128(Decimal128(number: 5))]), .none])
                realm.add(o)
            }
            try realm.write {
                let o = realm.objects(MixedHolder.self).first!
                o.anyCol.dictionaryValue?["list"]?.listValue?.append(.int(3))
                o.anyValue.value.listValue?.removeLast()
            }
        }
        try check(Realm(configuration: config))
        var compacting = config
        compacting.shouldCompactOnLaunch = { _, _ in true }
        try check(Realm(configuration: compacting))
        try check(Realm(configuration: config))
    }

    // MARK: Errors

    @Test("a nested collection cannot be an element of a List, MutableSet or Map property")
    func nestedInCollectionPropertyStops() async {
        await #expect(processExitsWith: .failure) {
            let realm = try! MixedCollectionTests.realm()
            try! realm.write {
                let o = realm.create(MixedHolder.self, value: [String: Any]())
                o.mixedList.append(.fromArray([.int(1)]))
            }
        }
    }

    @Test("filter on a nested list and observe on a nested map stop with a message that says what to do instead")
    func nestedQueryAndObserveStop() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try! MixedCollectionTests.realm()
            let o = MixedHolder()
            o.anyCol = .fromArray([.int(1)])
            try! realm.write { realm.add(o) }
            _ = o.anyCol.listValue!.filter("self == 1")
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?
            .contains("Queries on a collection nested in an AnyRealmValue property are not supported") == true)
        await #expect(processExitsWith: .failure) {
            let realm = try! MixedCollectionTests.realm()
            let o = MixedHolder()
            o.anyCol = .fromDictionary(["k": .int(1)])
            try! realm.write { realm.add(o) }
            _ = o.anyCol.dictionaryValue!.observe { _ in }
        }
    }

    // MARK: Queries

    /// Three objects whose `anyCol` is Realm's nested list of testNestedAnyRealmList,
    /// its nested dictionary of testNestedAnyRealmDictionary, and an integer.
    static func queryRealm() throws -> Realm {
        let realm = try realm()
        try realm.write {
            let list = MixedHolder()
            list.name = "list"
            let subArray2 = AnyRealmValue.fromArray([.string("john"), .bool(false)])
            let subArray3 = AnyRealmValue.fromArray([subArray2, .double(76.54)])
            let subArray4 = AnyRealmValue.fromArray([subArray3, .int(99)])
            list.anyCol = .fromArray([subArray4, .float(20.34)])
            let dictionary = MixedHolder()
            dictionary.name = "dictionary"
            let subDict2 = AnyRealmValue.fromDictionary(["key6": .string("john"), "key7": .bool(false)])
            let subDict3 = AnyRealmValue.fromDictionary(["key4": subDict2, "key5": .double(76.54)])
            let subDict4 = AnyRealmValue.fromDictionary(["key2": subDict3, "key3": .int(99)])
            dictionary.anyCol = .fromDictionary(["key0": subDict4, "key1": .float(20.34)])
            let scalar = MixedHolder()
            scalar.name = "scalar"
            scalar.anyCol = .int(99)
            realm.add([list, dictionary, scalar])
        }
        return realm
    }

    static func names(_ results: Results<MixedHolder>) -> [String] { results.map(\.name).sorted() }

    @Test("testNestedAnyRealmList: positions of nested lists in format strings and typed queries")
    func nestedAnyRealmListQueries() throws {
        let realm = try Self.queryRealm()
        let objects = realm.objects(MixedHolder.self)
        func check(_ format: String, _ args: [Any], _ expected: [String], _ typed: (Query<MixedHolder>) -> Query<Bool>) {
            #expect(Self.names(objects.filter(try! PredicateFormat(format, argumentArray: args))) == expected, "\(format)")
            #expect(Self.names(objects.where(typed)) == expected, "typed \(format)")
        }
        check("anyCol[%@] == %@", [1, AnyRealmValue.float(20.34)], ["list"]) { $0.anyCol[1] == .float(20.34) }
        // Every element: the dictionary holds 20.34 too.
        check("anyCol[%K] == %@", ["#any", AnyRealmValue.float(20.34)], ["dictionary", "list"]) { $0.anyCol.any == .float(20.34) }
        check("anyCol[%@][%@] == %@", [0, 1, AnyRealmValue.int(99)], ["list"]) { $0.anyCol[0][1] == .int(99) }
        check("anyCol[%@][%@][%@] == %@", [0, 0, 1, AnyRealmValue.double(76.54)], ["list"]) { $0.anyCol[0][0][1] == .double(76.54) }
        check("anyCol[%@][%@][%K] == %@", [0, 0, "#any", AnyRealmValue.double(76.54)], ["list"]) { $0.anyCol[0][0].any == .double(76.54) }
        check("anyCol[%@][%@][%@][%@] == %@", [0, 0, 0, 0, AnyRealmValue.string("john")], ["list"]) {
            $0.anyCol[0][0][0][0] == .string("john")
        }
        check("anyCol[%@][%@][%@][%K] == %@", [0, 0, 0, "#any", AnyRealmValue.bool(false)], ["list"]) {
            $0.anyCol[0][0][0].any == .bool(false)
        }
        check("anyCol[%@][%@] >= %@", [0, 1, AnyRealmValue.int(99)], ["list"]) { $0.anyCol[0][1] >= .int(99) }
        check("anyCol[%@][%@] <= %@", [0, 1, AnyRealmValue.int(99)], ["list"]) { $0.anyCol[0][1] <= .int(99) }
        check("anyCol[%@][%@] != %@", [0, 1, AnyRealmValue.int(99)], ["dictionary", "scalar"]) { $0.anyCol[0][1] != .int(99) }
        // A string in brackets is a key, even '#any': a list has none.
        check("anyCol[%@] == %@", ["#any", AnyRealmValue.float(20.34)], []) { $0.anyCol["#any"] == .float(20.34) }
        // Written in Realm's query language.
        #expect(Self.names(objects.filter("anyCol[*] == 20.34f")) == ["dictionary", "list"])
        #expect(Self.names(objects.filter("anyCol[*] == 99")).isEmpty)
        #expect(Self.names(objects.filter("anyCol[0][1] == 99")) == ["list"])
        #expect(Self.names(objects.filter("anyCol[5] == nil")) == ["dictionary", "list", "scalar"])
    }

    @Test("testNestedAnyRealmDictionary: keys of nested dictionaries in format strings and typed queries")
    func nestedAnyRealmDictionaryQueries() throws {
        let realm = try Self.queryRealm()
        let objects = realm.objects(MixedHolder.self)
        func check(_ format: String, _ args: [Any], _ expected: [String], _ typed: (Query<MixedHolder>) -> Query<Bool>) {
            #expect(Self.names(objects.filter(try! PredicateFormat(format, argumentArray: args))) == expected, "\(format)")
            #expect(Self.names(objects.where(typed)) == expected, "typed \(format)")
        }
        check("anyCol[%@] == %@", ["key1", AnyRealmValue.float(20.34)], ["dictionary"]) { $0.anyCol["key1"] == .float(20.34) }
        check("anyCol[%K] == %@", ["#any", AnyRealmValue.float(20.34)], ["dictionary", "list"]) { $0.anyCol.any == .float(20.34) }
        check("anyCol[%@][%@] == %@", ["key0", "key3", AnyRealmValue.int(99)], ["dictionary"]) { $0.anyCol["key0"]["key3"] == .int(99) }
        check("anyCol[%@][%K] == %@", ["key0", "#any", AnyRealmValue.int(99)], ["dictionary"]) { $0.anyCol["key0"].any == .int(99) }
        check("anyCol[%@][%@][%@] == %@", ["key0", "key2", "key5", AnyRealmValue.double(76.54)], ["dictionary"]) {
            $0.anyCol["key0"]["key2"]["key5"] == .double(76.54)
        }
        check("anyCol[%@][%@][%@][%@] == %@", ["key0", "key2", "key4", "key7", AnyRealmValue.bool(false)], ["dictionary"]) {
            $0.anyCol["key0"]["key2"]["key4"]["key7"] == .bool(false)
        }
        check("anyCol[%@][%K] >= %@", ["key0", "#any", AnyRealmValue.int(99)], ["dictionary"]) { $0.anyCol["key0"].any >= .int(99) }
        check("anyCol[%@][%@] == %@", ["key0", "#any", AnyRealmValue.int(99)], []) { $0.anyCol["key0"]["#any"] == .int(99) }
        #expect(Self.names(objects.filter("anyCol['key0']['key2']['key4']['key6'] == 'john'")) == ["dictionary"])
    }

    @Test("a whole nested collection compares by its elements, @count and @size count a nested collection, and a change re-runs a query")
    func wholeCollectionsCountsAndLiveResults() throws {
        let realm = try Self.queryRealm()
        let objects = realm.objects(MixedHolder.self)
        // QueryTests testAnyRealmValue: `anyCol == %@` with a collection.
        let dictionary = Map<String, AnyRealmValue>()
        dictionary["key"] = .string("FooBar")
        let holder = try #require(objects.filter("name == 'scalar'").first)
        try realm.write { holder.anyCol = .dictionary(dictionary) }
        #expect(Self.names(objects.filter("anyCol == %@", AnyRealmValue.dictionary(dictionary))) == ["scalar"])
        #expect(Self.names(objects.where { $0.anyCol == .dictionary(dictionary) }) == ["scalar"])
        #expect(Self.names(objects.filter("anyCol == %@", AnyRealmValue.fromArray([.string("FooBar")]))).isEmpty)

        #expect(Self.names(objects.filter("anyCol.@count == 2")) == ["dictionary", "list"])
        #expect(Self.names(objects.filter("anyCol.@size == 1")) == ["scalar"])
        #expect(Self.names(objects.filter("anyCol[0].@count == 2")) == ["list"])
        #expect(Self.names(objects.filter("anyCol['key0'].@count > 1")) == ["dictionary"])

        // A results observer sees an object enter when a nested value changes.
        let matching = objects.filter("anyCol['key'] == 'changed'")
        var updates: [[Int]] = []
        let token = matching.observe { change in
            if case .update(_, _, let insertions, _) = change { updates.append(insertions) }
        }
        defer { token.invalidate() }
        #expect(matching.isEmpty)
        try realm.write { holder.anyCol.dictionaryValue?["key"] = .string("changed") }
        realm.refresh()
        #expect(Self.names(matching) == ["scalar"])
        #expect(updates == [[0]])
    }

    @Test("a subscript after a property that is neither a map nor mixed is an invalid key path")
    func subscriptOnOtherProperty() throws {
        let error = #expect(throws: ShoalError.self) { try PredicateFormat("name[0] == 'x'").validate(for: MixedHolder.self) }
        #expect(error?.message.contains("a subscript must follow a map or mixed property") == true)
        #expect(throws: Never.self) { try PredicateFormat("anyCol[0]['k'][*] == 1").validate(for: MixedHolder.self) }
        // A List<AnyRealmValue> property's elements are never collections.
        #expect(throws: ShoalError.self) { try PredicateFormat("mixedList[0] == 1").validate(for: MixedHolder.self) }
    }
}
