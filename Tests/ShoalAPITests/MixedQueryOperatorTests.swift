import Foundation
import Shoal
import Testing

/// Properties named as the words of `[FIRST]`, `[LAST]` and `[SIZE]`.
final class MixedWords: Object {
    @Persisted var first: String
    @Persisted var last: String
    @Persisted var size: Int
    @Persisted var anyCol: AnyRealmValue
}

// Realm's `[FIRST]`, `[LAST]`, `[SIZE]` and `@type` on mixed values, in the
// words of realm-core's test_parser.cpp where it covers a case
// (Parser_NestedDictionaryList, Parser_NestedListDictionary,
// Parser_NestedMixedDictionaryList, Parser_TypeOfValue).
@Suite struct MixedQueryOperatorTests {
    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
            objectTypes: [MixedHolder.self, MixedText.self, MixedWords.self]))
    }

    static func names(_ results: Results<MixedHolder>) -> [String] { results.map(\.name).sorted() }

    static func add(_ realm: Realm, _ values: [(String, AnyRealmValue)]) throws {
        try realm.write {
            for (name, value) in values {
                let holder = MixedHolder()
                holder.name = name
                holder.anyCol = value
                realm.add(holder)
            }
        }
    }

    /// Parser_NestedDictionaryList's and Parser_NestedListDictionary's objects,
    /// their collections in the mixed property, and an empty list.
    static func nestedRealm() throws -> Realm {
        let realm = try realm()
        try add(realm, [
            ("Paul", .fromDictionary(["tickets": .fromArray([.int(0), .int(1), .int(4)])])),
            ("John", .fromDictionary(["tickets": .fromArray([.int(2), .int(3), .int(4)])])),
            ("Ringo", .fromArray([.fromDictionary(["one": .int(1), "two": .int(2), "foo": .int(5), "three": .int(3)])])),
            ("George", .fromArray([.fromDictionary(["two": .int(2), "bar": .int(5), "four": .int(4)])])),
            ("empty", .fromArray([])),
            ("text", .string("abc")),
        ])
        return realm
    }

    @Test("[FIRST] and [LAST]: the first and last element of a nested list, chained with further subscripts")
    func firstAndLast() throws {
        let objects = try Self.nestedRealm().objects(MixedHolder.self)
        // Parser_NestedDictionaryList: "properties.tickets[last] == 4".
        #expect(Self.names(objects.filter("anyCol['tickets'][last] == 4")) == ["John", "Paul"])
        #expect(Self.names(objects.filter("anyCol['tickets'][LAST] == 4")) == ["John", "Paul"])
        #expect(Self.names(objects.filter("anyCol['tickets'][FIRST] == 0")) == ["Paul"])
        #expect(Self.names(objects.filter("anyCol['tickets'][first] > 1")) == ["John"])
        // Parser_NestedListDictionary: "properties[first].two == 2", "properties[0].one == 1".
        #expect(Self.names(objects.filter("anyCol[first]['two'] == 2")) == ["George", "Ringo"])
        #expect(Self.names(objects.filter("anyCol[FIRST]['one'] == 1")) == ["Ringo"])
        #expect(Self.names(objects.filter("anyCol[LAST]['four'] == 4")) == ["George"])
        #expect(Self.names(objects.filter("anyCol[LAST][*] == 5")) == ["George", "Ringo"])
        // No element (an empty list, a dictionary, a string) is nil, as a position past the end is.
        #expect(Self.names(objects.filter("anyCol[LAST] == nil")) == ["John", "Paul", "empty", "text"])
        #expect(Self.names(objects.filter("anyCol[FIRST] == nil")) == Self.names(objects.filter("anyCol[0] == nil")))
        #expect(Self.names(objects.filter("anyCol[LAST] != nil")) == ["George", "Ringo"])
        #expect(Self.names(objects.filter("anyCol[FIRST] != nil")) == ["George", "Ringo"])

        // On Realm's nested list of testNestedAnyRealmList.
        let queried = try MixedCollectionTests.queryRealm().objects(MixedHolder.self)
        #expect(Self.names(queried.filter("anyCol[LAST] == 20.34f")) == ["list"])
        #expect(Self.names(queried.filter("anyCol[FIRST][LAST] == 99")) == ["list"])
        #expect(Self.names(queried.filter("anyCol[first][first][last] == 76.54")) == ["list"])
        #expect(Self.names(queried.filter("anyCol[first][first][first][first] == 'john'")) == ["list"])
    }

    @Test("[SIZE] is .@size: the size of a nested list or dictionary, compared with numbers")
    func size() throws {
        let objects = try Self.nestedRealm().objects(MixedHolder.self)
        // Parser_RecursiveLogial's "relations[SIZE] == 3", on nested collections.
        #expect(Self.names(objects.filter("anyCol[SIZE] == 1")) == ["George", "John", "Paul", "Ringo"])
        #expect(Self.names(objects.filter("anyCol['tickets'][SIZE] == 3")) == ["John", "Paul"])
        #expect(Self.names(objects.filter("anyCol[FIRST][size] == 4")) == ["Ringo"])
        #expect(Self.names(objects.filter("anyCol[FIRST][SIZE] > 2")) == ["George", "Ringo"])
        for format in ["anyCol[SIZE] == 0", "anyCol[SIZE] > 0", "anyCol[FIRST][SIZE] == 3", "anyCol['tickets'][size] >= 3"] {
            let asSize = format.replacingOccurrences(of: "[SIZE]", with: ".@size").replacingOccurrences(of: "[size]", with: ".@size")
            #expect(Self.names(objects.filter(format)) == Self.names(objects.filter(asSize)), "\(format)")
        }
        // A list property's size too, as Realm's "children[SIZE] == 2".
        let realm = try Self.realm()
        try realm.write {
            let holder = MixedHolder()
            holder.name = "two"
            holder.mixedList.append(objectsIn: [.int(1), .string("a")])
            realm.add(holder)
        }
        #expect(Self.names(realm.objects(MixedHolder.self).filter("mixedList[SIZE] == 2")) == ["two"])
    }

    @Test("[FIRST], [LAST] and [SIZE] are words only in a subscript: properties named first, last and size still work")
    func wordsAsPropertyNames() throws {
        let realm = try Self.realm()
        try realm.write {
            let words = MixedWords()
            words.first = "a"
            words.last = "b"
            words.size = 3
            words.anyCol = .fromArray([.string("x"), .string("y")])
            realm.add(words)
        }
        let objects = realm.objects(MixedWords.self)
        #expect(objects.filter("first == 'a' AND last == 'b' AND size == 3").count == 1)
        #expect(objects.filter("first == %@ AND size > 2", "a").count == 1)
        #expect(objects.filter("anyCol[first] == 'x' AND anyCol[last] == 'y' AND anyCol[size] == 2").count == 1)
        #expect(objects.filter("anyCol['first'] == 'x'").isEmpty)
    }

    @Test("[SIZE] must end the key path, an index is not negative, and a subscript word is one of Realm's")
    func invalidSubscripts() throws {
        func message(_ format: String) -> String? {
            let error = #expect(throws: ShoalError.self, "\(format)") { try PredicateFormat(format).validate(for: MixedHolder.self) }
            return error?.message
        }
        #expect(message("anyCol[SIZE][0] == 1")?.contains("[SIZE] must appear at the end of a keypath") == true)
        #expect(message("anyCol[SIZE].name == 1")?.contains("Invalid keypath 'anyCol[SIZE].name': [SIZE] must appear at the end of a keypath.") == true)
        #expect(message("anyCol[SIZE].@count == 1")?.contains("[SIZE] must appear at the end of a keypath") == true)
        #expect(message("anyCol[-1] == 1")?.contains("a list index must not be negative (write LAST for the last element)") == true)
        #expect(message("anyCol[Last] == 1")?.contains("a string key, an index, '*', FIRST, LAST or SIZE") == true)
        #expect(message("name[FIRST] == 'x'")?.contains("a subscript must follow a map or mixed property") == true)
        for format in ["anyCol[SIZE", "anyCol[SIZE]] == 1", "[SIZE] == 1", "anyCol[FIRST == 1", "anyCol[SIZE] == 'a'"] {
            #expect(throws: ShoalError.self, "\(format)") { try PredicateFormat(format).validate(for: MixedHolder.self) }
        }
    }

    /// Parser_TypeOfValue's kinds of value, one object each, by the kind's name.
    static func typedRealm() throws -> Realm {
        let realm = try realm()
        let text = MixedText()
        text.stringCol = "linked"
        try add(realm, [
            ("string", .string("String0")), ("int", .int(1)), ("double", .double(75)), ("float", .float(2.5)),
            ("decimal", .decimal128(Decimal128(number: 3))), ("binary", .data(Data("String2Binary".utf8))),
            ("bool", .bool(true)), ("date", .date(Date(timeIntervalSince1970: 0))), ("uuid", .uuid(UUID())),
            ("objectId", .objectId(ObjectId.generate())), ("link", .object(text)), ("null", .none),
            ("list", .fromArray([.int(1), .string("hello")])), ("dictionary", .fromDictionary(["k": .double(1)])),
        ])
        try realm.write {
            let numbers = MixedHolder()
            numbers.name = "numbers"
            numbers.anyCol = .fromArray([.int(1), .decimal128(Decimal128(number: 10)), .double(100)])
            numbers.mixedList.append(objectsIn: [.int(1), .decimal128(Decimal128(number: 10)), .double(100)])
            realm.add(numbers)
            let hello = try #require(realm.objects(MixedHolder.self).filter("name == 'list'").first)
            hello.mixedList.append(objectsIn: [.string("hello"), .int(1000)])
        }
        return realm
    }

    @Test("@type: each of Realm's type names, in any case, for values and nested collections")
    func typeNames() throws {
        let objects = try Self.typedRealm().objects(MixedHolder.self)
        func check(_ format: String, _ expected: [String], _ args: Any...) {
            #expect(Self.names(objects.filter(try! PredicateFormat(format, argumentArray: args))) == expected.sorted(), "\(format)")
        }
        // Parser_TypeOfValue.
        check("anyCol.@type == 'string'", ["string"])
        check("anyCol.@type == 'double'", ["double"])
        check("anyCol.@type == 'float'", ["float"])
        check("anyCol.@type == 'Decimal'", ["decimal"])
        check("anyCol.@type == 'decimal128'", ["decimal"])
        check("anyCol.@type == 'binary'", ["binary"])
        check("anyCol.@type == 'bytearray'", ["binary"])
        check("anyCol.@type == 'byte[]'", ["binary"])
        check("anyCol.@type == 'uuid'", ["uuid"])
        check("anyCol.@type == 'guid'", ["uuid"])
        check("anyCol.@type == 'bool'", ["bool"])
        check("anyCol.@type == 'boolean'", ["bool"])
        for name in ["int", "integer", "int16", "int32", "int64", "short", "long", "byte", "char"] {
            check("anyCol.@type == '\(name)'", ["int"])
        }
        check("anyCol.@type == 'timestamp'", ["date"])
        check("anyCol.@type == 'datetimeoffset'", ["date"])
        check("anyCol.@type == 'date'", ["date"])
        check("anyCol.@type == 'objectlink'", ["link"])
        check("anyCol.@type == 'link'", ["link"])
        check("anyCol.@type == 'objectId'", ["objectId"])
        check("anyCol.@type == $0", ["string"], "string")
        check("anyCol.@type == %@", ["int"], "int")
        check("anyCol.@type == %@", ["string"], "string")
        check("anyCol.@type == 'binary' || anyCol.@type == 'DECIMAL' || anyCol.@type == 'Double'", ["binary", "decimal", "double"])
        check("anyCol.@type == 'null'", ["null"])
        check("anyCol.@type == 'numeric'", ["decimal", "double", "float", "int"])
        check("anyCol.@type IN {'numeric', 'string'}", ["decimal", "double", "float", "int", "string"])
        check("anyCol.@type != 'numeric' AND anyCol.@type != 'string' AND anyCol.@type != 'collection'",
            ["binary", "bool", "date", "link", "null", "objectId", "uuid"])
        check("anyCol > 50 && anyCol.@type == 'double'", ["double"])
        check("anyCol > 50 && anyCol.@type != 'double'", [])
        // Parser_NestedMixedDictionaryList: 'object' is a dictionary, 'array' a list.
        check("anyCol.@type == 'object'", ["dictionary"])
        check("anyCol.@type == 'dictionary'", ["dictionary"])
        check("anyCol.@type == 'array'", ["list", "numbers"])
        check("anyCol.@type == 'list'", ["list", "numbers"])
        check("anyCol.@type == 'collection'", ["dictionary", "list", "numbers"])
    }

    @Test("@type on subscripted and collection elements, with ANY, ALL and NONE")
    func typeOfElements() throws {
        let objects = try Self.typedRealm().objects(MixedHolder.self)
        func check(_ format: String, _ expected: [String]) {
            #expect(Self.names(objects.filter(format)) == expected.sorted(), "\(format)")
        }
        check("anyCol[0].@type == 'int'", ["list", "numbers"])
        check("anyCol[LAST].@type == 'string'", ["list"])
        check("anyCol[1].@type == 'decimal'", ["numbers"])
        check("anyCol['k'].@type == 'double'", ["dictionary"])
        check("anyCol[*].@type == 'string'", ["list"])
        check("ALL anyCol[*].@type == 'numeric' AND anyCol[SIZE] > 0", ["dictionary", "numbers"])
        check("NONE anyCol[*].@type == 'string' AND anyCol.@type == 'collection'", ["dictionary", "numbers"])
        check("ANY anyCol[*].@type != 'numeric'", ["list"])
        // Parser_TypeOfValue's list of mixed: "list.@type == 'numeric'" and its quantifiers.
        check("mixedList.@type == 'numeric'", ["list", "numbers"])
        check("mixedList.@type == 'numeric' AND mixedList >= 10", ["list", "numbers"])
        check("ALL mixedList.@type == 'numeric' && mixedList.@size > 0", ["numbers"])
        check("NONE mixedList.@type == 'binary' && mixedList.@size > 0", ["list", "numbers"])
        check("NONE mixedList.@type == 'string' && mixedList.@size > 0", ["numbers"])
        check("ALL mixedList.@type != 'string' && mixedList.@size > 0", ["numbers"])
        check("NONE mixedList.@type != 'numeric' && mixedList.@size > 0", ["numbers"])
    }

    @Test("@type refuses an unknown type name, a value that is not a name, other operators, and a property that is not mixed")
    func invalidTypeQueries() throws {
        func message(_ format: String) -> String? {
            let error = #expect(throws: ShoalError.self, "\(format)") { try PredicateFormat(format).validate(for: MixedHolder.self) }
            return error?.message
        }
        // Parser_TypeOfValue's messages.
        let unknown = message("anyCol.@type == 'asdf'")
        #expect(unknown?.contains("Unable to parse the type attribute string 'asdf', supported case insensitive values are: [null, int, integer,") == true)
        #expect(unknown?.contains("numeric, bindata, object, dictionary, array, list, collection]") == true)
        #expect(message("mixedList.@type IN {'numeric', 'asdf'}")?.contains("Unable to parse the type attribute string 'asdf'") == true)
        #expect(message("anyCol.@type == ''")?.contains("Unable to parse the type attribute string ''") == true)
        #expect(message("anyCol.@type == 'string|double|'")?.contains("Unable to parse the type attribute string") == true)
        #expect(message("anyCol.@type == 23")?.contains("Unsupported comparison between @type and raw value: '@type' and 'int'") == true)
        #expect(message("anyCol.@type == 2.5")?.contains("Unsupported comparison between @type and raw value: '@type' and 'double'") == true)
        #expect(message("anyCol.@type =[c] 'string'")?.contains(
            "Unsupported comparison operator '==[c]' against type '@type', right side must be a string or binary type") == true)
        #expect(message("anyCol.@type < 'int'")?.contains("Unsupported comparison operator '<' against type '@type'") == true)
        #expect(message("anyCol.@type == name")?.contains("'@type' can only be compared with type names, not with 'name'") == true)
        #expect(message("name == anyCol.@type")?.contains("'@type' can only be compared with type names") == true)
        // Realm refuses @type on a typed property ("int.@type == 'int'").
        #expect(message("name.@type == 'string'")?.contains("'@type' needs a mixed (AnyRealmValue) value, and 'name' is of type 'string'") == true)
        #expect(message("anyCol.@type.name == 'string'")?.contains("@type must appear at the end of a keypath") == true)
        for format in ["@type == 'int'", "anyCol.@type.@type == 'int'", "anyCol.@type", "anyCol.@type == nil", "'int' IN anyCol.@type"] {
            #expect(throws: ShoalError.self, "\(format)") { try PredicateFormat(format).validate(for: MixedHolder.self) }
        }
    }
}
