import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

@Suite struct SchemaTests {
    @Test("discovery reads every @Persisted property with its type, optionality, collection kind and flags")
    func discovery() throws {
        let schema = ClassRegistry.info(for: AllTypes.self).schema
        let expected: [(String, PropertyType, Bool, CollectionKind)] = [
            ("id", .objectId, false, .none), ("bool", .bool, false, .none), ("int", .int, false, .none),
            ("int8", .int, false, .none), ("float", .float, false, .none), ("double", .double, false, .none),
            ("string", .string, false, .none), ("data", .data, false, .none), ("date", .date, false, .none),
            ("uuid", .uuid, false, .none), ("decimal", .decimal128, false, .none), ("objectId", .objectId, false, .none),
            ("any", .any, true, .none), ("size", .int, false, .none), ("mood", .string, false, .none),
            ("optInt", .int, true, .none), ("optSize", .int, true, .none), ("link", .object, true, .none),
            ("ints", .int, false, .list), ("optStrings", .string, true, .list), ("dogs", .object, false, .list),
            ("dates", .date, false, .set), ("dogSet", .object, false, .set), ("doubles", .double, false, .map),
            ("dogMap", .object, true, .map), ("anys", .any, true, .list),
        ]
        for (name, type, optional, collection) in expected {
            let p = try #require(schema[name], "missing \(name)")
            #expect(p.type == type, "\(name)")
            #expect(p.isOptional == optional, "\(name)")
            #expect(p.collection == collection, "\(name)")
        }
        #expect(schema.primaryKeyProperty?.name == "id")
        #expect(schema["link"]?.objectClassName == "Dog")
        let dog = ClassRegistry.info(for: Dog.self).schema
        #expect(dog["age"]?.isIndexed == true)
        #expect(dog["owners"]?.type == .linkingObjects)
        #expect(dog["owners"]?.linkOriginPropertyName == "dogs")
        #expect(dog.properties.last?.name == "owners")
        #expect(dog.description.contains("owners: LinkingObjects<Person> (originProperty: dogs)"))
    }

    @Test("every model class gets the verified fast path to its unmanaged values, which agrees with reflection", arguments: [
        Dog.self, Person.self, AllTypes.self, Kennel.self, Puppy.self, Note.self,
    ] as [Object.Type])
    func wrapperOffsets(_ type: Object.Type) throws {
        let info = ClassRegistry.info(for: type)
        let offsets = try #require(info.confirmedOffsets)
        #expect(offsets.count == info.schema.properties.count)
        let legacy = Set(info.legacyLinkingObjects.map(\.property))
        #expect(offsets.indices.allSatisfy { (offsets[$0] < 0) == legacy.contains($0) })
        let object = type.init(_shoalMetatype: ())
        let boxes = ClassRegistry.unmanagedBoxes(of: object)
        for child in ClassRegistry.children(of: object) {
            guard let label = child.label, let p = child.value as? any PersistedProperty,
                let index = info.schema.indexByName[String(label.dropFirst())], index < boxes.count
            else { continue }
            #expect(boxes[index] === p.anyBox, "\(label)")
        }
    }

    /// Each `@Persisted` wrapper's `managedProperty`, by property name.
    private func managedProperties(of object: Object) -> [String: Int] {
        var found: [String: Int] = [:]
        for child in ClassRegistry.children(of: object) {
            guard let label = child.label, child.value is any PersistedProperty,
                let index = Mirror(reflecting: child.value).children.first(where: { $0.label == "managedProperty" })?.value as? Int
            else { continue }
            found[String(label.dropFirst())] = index
        }
        return found
    }

    @Test("a managed accessor's and an added object's wrappers know their property, linking objects included; an unmanaged object's do not")
    func managedPropertyIndexes() throws {
        let realm = try makeRealm()
        let schema = ClassRegistry.info(for: Dog.self).schema
        let unmanaged = Dog()
        unmanaged.id = 1
        unmanaged.name = "Rex"
        #expect(managedProperties(of: unmanaged).values.allSatisfy { $0 == -1 })
        try realm.write { realm.add(unmanaged) }

        let accessor = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
        for object in [accessor, unmanaged] {
            let marked = managedProperties(of: object)
            #expect(marked.count == schema.properties.count)
            for property in schema.properties {
                #expect(marked[property.name] == schema.indexByName[property.name], "\(property.name)")
            }
        }
        // Both see one object.
        try realm.write { unmanaged.name = "Max"; accessor.age = 7 }
        #expect(accessor.name == "Max")
        #expect(unmanaged.age == 7)
        #expect(unmanaged.owners.count == 0)
    }

    @Test("the fingerprint is stable for one schema and changes with any property change")
    func fingerprint() {
        let a = Schema([ClassRegistry.info(for: Person.self).schema, ClassRegistry.info(for: Dog.self).schema])
        let b = Schema([ClassRegistry.info(for: Person.self).schema, ClassRegistry.info(for: Dog.self).schema])
        #expect(a.fingerprint == b.fingerprint)
        let changed = Schema([
            ClassRegistry.info(for: Person.self).schema,
            ObjectSchema(className: "Dog", properties: ClassRegistry.info(for: Dog.self).schema.properties.filter { $0.name != "breed" }),
        ])
        #expect(changed.fingerprint != a.fingerprint)
        #expect(a.differences(to: changed) == ["Property 'Dog.breed' was removed."])
    }

    @Test("validation names each problem: bad primary key type, index on a double, non-optional link, missing origin")
    func validation() {
        let bad = Schema([
            ObjectSchema(className: "A", properties: [
                Property(name: "pk", type: .double, isPrimary: true),
                Property(name: "score", type: .double, isIndexed: true),
                Property(name: "b", type: .object, objectClassName: "B"),
            ]),
            ObjectSchema(className: "B", properties: [
                Property(name: "back", type: .linkingObjects, objectClassName: "A", linkOriginPropertyName: "nope"),
            ]),
        ])
        let error = #expect(throws: ShoalError.self) { try bad.validate() }
        let problems = error?.context["problems"] ?? ""
        #expect(problems.contains("Property 'A.pk' of type 'double' cannot be a primary key"))
        #expect(problems.contains("Property 'A.score' of type 'double' cannot be indexed"))
        #expect(problems.contains("Property 'A.b' is a link to 'B' and must be optional ('B?')"))
        #expect(problems.contains("Property 'B.back' declares linking objects from 'A.nope', which does not exist"))
    }
}

/// Realm's schema rules for embedded classes, with realm-core's messages.
@Suite struct EmbeddedSchemaTests {
    static func message(_ classes: [ObjectSchema]) -> String {
        do {
            try Schema(classes).validate()
            return ""
        } catch { return error.message }
    }

    // realm-core's object store schema test "rejects embedded objects in sets".
    @Test("a MutableSet of an embedded class is refused")
    func setRefused() {
        let message = Self.message([
            ObjectSchema(className: "T", properties: [Property(name: "v", type: .int)], isEmbedded: true),
            ObjectSchema(className: "O", properties: [Property(name: "set", type: .object, collection: .set, objectClassName: "T")]),
        ])
        #expect(message.contains("Set property 'O.set' cannot contain embedded object type 'T'. Set semantics are not applicable to embedded objects."))
    }

    // realm-core's "rejects embedded objects loop to itself" and "… via different embedded object";
    // "allows top level loops" and "distinct paths to an embedded object is not a loop".
    @Test("a cycle of links through embedded classes only is refused; other loops are allowed")
    func cycles() {
        let selfLoop = Self.message([
            ObjectSchema(className: "Top", properties: [Property(name: "e", type: .object, isOptional: true, objectClassName: "E")]),
            ObjectSchema(className: "E", properties: [Property(name: "me", type: .object, isOptional: true, objectClassName: "E")], isEmbedded: true),
        ])
        #expect(selfLoop.contains("Cycles containing embedded objects are not currently supported: 'E.me'"))
        let viaOther = Self.message([
            ObjectSchema(className: "Top", properties: [Property(name: "a", type: .object, isOptional: true, objectClassName: "A")]),
            ObjectSchema(className: "A", properties: [Property(name: "toB", type: .object, collection: .list, objectClassName: "B")], isEmbedded: true),
            ObjectSchema(className: "B", properties: [Property(name: "toA", type: .object, isOptional: true, objectClassName: "A")], isEmbedded: true),
        ])
        #expect(viaOther.contains("'A.toB.toA'"))
        let allowed = Self.message([
            ObjectSchema(className: "Top", properties: [
                Property(name: "one", type: .object, isOptional: true, objectClassName: "E"),
                Property(name: "two", type: .object, isOptional: true, objectClassName: "E"),
            ]),
            ObjectSchema(className: "E", properties: [Property(name: "top", type: .object, isOptional: true, objectClassName: "Top")], isEmbedded: true),
        ])
        #expect(allowed == "")
    }

    @Test("an embedded class with a primary key is refused")
    func primaryKeyRefused() {
        let message = Self.message([ObjectSchema(className: "K", properties: [Property(name: "id", type: .int, isPrimary: true)], isEmbedded: true)])
        #expect(message.contains("Embedded object type 'K' cannot have a primary key ('id')."))
    }

    @Test("discovery marks EmbeddedObject subclasses; the schema codec keeps the mark and older encodings read as before")
    func codec() throws {
        final class Inner: EmbeddedObject {
            @Persisted var v = 0
        }
        #expect(ClassRegistry.info(for: Inner.self).schema.isEmbedded)
        let plain = ObjectSchema(className: "P", properties: [Property(name: "e", type: .object, isOptional: true, objectClassName: "E")])
        let embedded = ObjectSchema(className: "E", properties: [Property(name: "v", type: .int)], isEmbedded: true)
        let schema = Schema([plain, embedded])
        let decoded = try SchemaCodec.decode(SchemaCodec.encode(schema))
        #expect(decoded == schema && decoded["E"]?.isEmbedded == true && decoded["P"]?.isEmbedded == false)
        // Without embedded classes the encoding and fingerprint are version 2's.
        let topLevel = Schema([ObjectSchema(className: "E", properties: [Property(name: "v", type: .int)])])
        #expect(SchemaCodec.encode(topLevel) == SchemaCodec.encode(Schema([ObjectSchema(className: "E", properties: embedded.properties)])))
        #expect(topLevel.canonicalEncoding == "class E\n  v 0 0 0 0 0 - -\n")
        #expect(Schema([embedded]).fingerprint != topLevel.fingerprint)
        // The class-flags entry is the first entry, with an empty name and type 0xFF.
        var bytes = SchemaCodec.encode(Schema([embedded]))
        #expect(Array(bytes[0...6]) == [1, 1, UInt8(ascii: "E"), 2, 0, 0xFF, 1])
        bytes[6] = 3  // an unknown class flag
        #expect(throws: DecodingFailure.self) { try SchemaCodec.decode(bytes) }
        bytes[6] = 0  // an entry that marks nothing is never written
        #expect(throws: DecodingFailure.self) { try SchemaCodec.decode(bytes) }
        #expect(Schema([embedded]).differences(to: topLevel) == ["Class 'E' changed from embedded to top-level."])
    }
}
