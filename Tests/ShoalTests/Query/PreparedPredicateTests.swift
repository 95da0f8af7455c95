import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

@Suite("A format run again with arguments of the same types is bound by substitution")
struct PreparedPredicateTests {
    /// A cache of this test's own, so that no other test's formats flush it.
    let templates = PredicateTemplates()

    static func schema(_ type: Object.Type) -> (Schema, QueryBinder.Root) {
        let schema = Schema(ClassRegistry.reachableSchemas(from: type))
        return (schema, .table(schema.tableByName[Object.className(of: type)]!))
    }

    /// Binds `format` with `arguments` the full way, keeping the binding
    /// as `filter` keeps it.
    @discardableResult
    private func bindFully(_ format: String, _ arguments: [Any], _ schema: Schema, _ root: QueryBinder.Root) throws -> BoundPredicate {
        let tree = try PredicateParser.parse(format, arguments: arguments, templates: templates)
        var binder = QueryBinder(schema: schema, root: root, format: format)
        let bound = try binder.bind(tree)
        templates.storeBound(format, arguments, schema: schema, root: root, bound: bound, conversions: binder.conversions)
        return bound
    }

    /// The binding with no cache in the way.
    private func uncached(_ format: String, _ arguments: [Any], _ schema: Schema, _ root: QueryBinder.Root) throws -> BoundPredicate {
        var parser = PredicateParser(tokens: try PredicateArguments.bind(PredicateLexer.tokenize(format), to: arguments))
        return try QueryBinder.bind(try parser.parsePredicate(), schema: schema, root: root, format: format)
    }

    /// Everything a bound predicate holds, each constant's kind included.
    private func everything(_ bound: BoundPredicate) -> String {
        var text = ""
        dump(bound, to: &text)
        return text
    }

    /// Runs `format` with the first arguments the full way, then checks that
    /// every later list is served prepared and binds as a fresh binding does.
    private func expectPrepared(_ format: String, on type: Object.Type = Dog.self, _ argumentLists: [[Any]],
        sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        let (schema, root) = Self.schema(type)
        try bindFully(format, argumentLists[0], schema, root)
        for arguments in argumentLists.dropFirst() {
            let prepared = try #require(templates.bound(format, arguments, schema: schema, root: root),
                "\(format) with \(arguments) was not prepared", sourceLocation: sourceLocation)
            let fresh = try uncached(format, arguments, schema, root)
            #expect(everything(prepared) == everything(fresh), "\(format) with \(arguments)", sourceLocation: sourceLocation)
        }
    }

    @Test("puts new values in: scalars, list arguments, list literals mixing arguments and literals, a constant on the left, NOT and OR")
    func newValues() throws {
        try expectPrepared("id BETWEEN {%d, %d}", [[1, 1_000], [500, 1_499], [7, 9]])
        try expectPrepared("age > %@ AND name BEGINSWITH[c] %@", [[3, "a"], [4, "b"], [9, "zz"]])
        try expectPrepared("name IN %@", [[["Rex", "Fido"]], [["Spot", "Max"]]])
        try expectPrepared("age BETWEEN %@", [[[1, 5]], [[2, 9]]])
        try expectPrepared("$0 < age OR age == $0 OR NOT (name == $1)", [[1, "a"], [7, "b"]])
        try expectPrepared("age IN {%d, 5, $0}", [[1], [2]])
        try expectPrepared("name == 'Rex' AND age >= %d", [[1], [2]])
        try expectPrepared("TRUEPREDICATE AND age != %@", [[NSNull()], [Optional<Int>.none as Any]])
    }

    @Test("converts each new value as the binder does: a double compared with a float property becomes a float")
    func conversions() throws {
        try expectPrepared("float == %@ OR optFloat IN %@", on: AllTypes.self, [[1.5, [2.5, 3.0]], [1.1, [2.2, 0.1]]])
        let (schema, root) = Self.schema(AllTypes.self)
        let prepared = try #require(templates.bound("float == %@ OR optFloat IN %@", [1.1, [2.2, 0.3]], schema: schema, root: root))
        #expect(prepared.description == "(float == 1.1f OR optFloat IN {2.2f, 0.3f})")
    }

    @Test("binds the full way when an argument's type, a list's length, a link's class, the schema or the root differ")
    func fallsBack() throws {
        let (schema, root) = Self.schema(Dog.self)
        try bindFully("age == %@", [3], schema, root)
        #expect(templates.bound("age == %@", [4], schema: schema, root: root) != nil)
        // A string for an int property: the full binding gives the error.
        #expect(templates.bound("age == %@", ["three"], schema: schema, root: root) == nil)
        #expect(throws: ShoalError.self) { try uncached("age == %@", ["three"], schema, root) }
        #expect(templates.bound("age == %@", [3.5], schema: schema, root: root) == nil)
        #expect(templates.bound("age == %@", [NSNull()], schema: schema, root: root) == nil)

        try bindFully("age IN %@", [[1, 2]], schema, root)
        #expect(templates.bound("age IN %@", [[3, 4]], schema: schema, root: root) != nil)
        #expect(templates.bound("age IN %@", [[3, 4, 5]], schema: schema, root: root) == nil)
        #expect(templates.bound("age IN %@", [[3, "x"]], schema: schema, root: root) == nil)

        let (otherSchema, otherRoot) = Self.schema(AllTypes.self)
        #expect(templates.bound("age == %@", [4], schema: otherSchema, root: otherRoot) == nil)
        #expect(templates.bound("age == %@", [4], schema: schema, root: .primitive(.int)) == nil)
        // A format never bound is not prepared, even when it parsed.
        _ = try PredicateParser.parse("name == %@", arguments: ["a"], templates: templates)
        #expect(templates.bound("name == %@", ["b"], schema: schema, root: root) == nil)
    }

    @Test("a link argument is prepared only for a link to the same class")
    func links() throws {
        let (schema, root) = Self.schema(Dog.self)
        let person = schema.tableByName["Person"]!
        let dog = schema.tableByName["Dog"]!
        try bindFully("owner == %@", [Value.link(Link(table: person, key: ObjectKey(1)))], schema, root)
        let prepared = try #require(templates.bound("owner == %@", [Value.link(Link(table: person, key: ObjectKey(7)))],
            schema: schema, root: root))
        #expect(everything(prepared) == everything(try uncached("owner == %@", [Value.link(Link(table: person, key: ObjectKey(7)))], schema, root)))
        #expect(templates.bound("owner == %@", [Value.link(Link(table: dog, key: ObjectKey(7)))], schema: schema, root: root) == nil)
    }

    @Test("a SUBQUERY is bound the full way every time; at most a few bindings are kept per template")
    func limits() throws {
        let (schema, root) = Self.schema(Person.self)
        let subquery = "SUBQUERY(dogs, $dog, $dog.age > %d).@count >= %d"
        try bindFully(subquery, [1, 2], schema, root)
        #expect(templates.bound(subquery, [3, 4], schema: schema, root: root) == nil)

        let (dogs, dogRoot) = Self.schema(Dog.self)
        for n in 1...(BoundTemplate.perTemplate + 2) {
            try bindFully("age IN %@", [Array(0..<n)], dogs, dogRoot)
        }
        #expect(templates.bound("age IN %@", [[9]], schema: dogs, root: dogRoot) == nil)
        #expect(templates.bound("age IN %@", [Array(10..<(12 + BoundTemplate.perTemplate))], schema: dogs, root: dogRoot) != nil)
    }

    @Test("for 300 random formats run with 12 random argument lists each, every prepared binding equals a fresh one, and arguments that fail to bind are never prepared")
    func randomized() throws {
        var rng = SeededRandom(seed: 17)
        func pick<T>(_ options: [T]) -> T { options[Int(rng.next() % UInt64(options.count))] }
        func argument() -> Any {
            switch rng.next() % 7 {
            case 0: return Int(rng.next() % 11) - 5
            case 1: return pick(["Rex", "Fido", "Spot"])
            case 2: return (0..<Int(rng.next() % 3)).map { _ in Int(rng.next() % 10) }
            case 3: return NSNull()
            case 4: return Double(rng.next() % 100) / 10
            case 5: return pick([["a", "b"], ["c"]])
            default: return (0..<2).map { _ in Int(rng.next() % 10) }
            }
        }
        let comparisons = [
            "age == %@", "age > %@", "%@ <= age", "id BETWEEN %@", "id BETWEEN {%@, %@}", "age IN %@", "name == %@",
            "name BEGINSWITH[c] %@", "%@ IN tags", "ANY tags == %@", "owner.name != %@", "scores['x'] > %@", "breed IN {%@, 'Pug'}",
        ]
        let (schema, root) = Self.schema(Dog.self)
        var prepared = 0
        for _ in 0..<300 {
            let terms = (0..<(1 + Int(rng.next() % 3))).map { _ in pick(comparisons) }
            let format = terms.joined(separator: pick([" AND ", " OR "]))
            let count = terms.reduce(0) { $0 + $1.components(separatedBy: "%@").count - 1 }
            for _ in 0..<12 {
                let arguments = (0..<count).map { _ in argument() }
                let fresh = try? uncached(format, arguments, schema, root)
                if let bound = templates.bound(format, arguments, schema: schema, root: root) {
                    prepared += 1
                    let fresh = try #require(fresh, "\(format) with \(arguments) was prepared but does not bind")
                    #expect(everything(bound) == everything(fresh), "\(format) with \(arguments)")
                } else if fresh != nil {
                    try bindFully(format, arguments, schema, root)
                }
            }
        }
        #expect(prepared > 100)
    }

    @Test("is shared safely by threads binding at once")
    func concurrent() async throws {
        let templates = self.templates
        let (schema, root) = Self.schema(Dog.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for i in 0..<200 {
                        let format = "age == %d AND id BETWEEN {%d, %d} AND name IN %@"
                        let arguments: [Any] = [task, i, i + task, ["a", "b"].prefix(i % 3).map { $0 }]
                        let fresh = try QueryBinder.bind(try PredicateParser.parse(format, arguments: arguments, templates: templates),
                            schema: schema, root: root, format: format)
                        if let bound = templates.bound(format, arguments, schema: schema, root: root) {
                            #expect(bound.description == fresh.description)
                        } else {
                            var binder = QueryBinder(schema: schema, root: root, format: format)
                            let tree = try PredicateParser.parse(format, arguments: arguments, templates: templates)
                            let bound = try binder.bind(tree)
                            templates.storeBound(format, arguments, schema: schema, root: root, bound: bound, conversions: binder.conversions)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("a kept binding holds none of the arguments' values, as a kept tree holds none")
    func keepsNoValues() throws {
        let (schema, root) = Self.schema(Dog.self)
        let big = (0..<100).map { String(repeating: "x", count: 100 + $0) }
        try bindFully("name IN %@ AND age > %d", [big, 3], schema, root)
        let (template, _) = try #require(templates.template("name IN %@ AND age > %d", [big, 3]))
        #expect(template.bindings.count == 1)
        #expect(template.bindings.first?.predicate.description == "(name IN {\(Array(repeating: "nil", count: 100).joined(separator: ", "))} AND age > nil)")
        // Binding again with the same types replaces the kept binding rather than adding one.
        try bindFully("name IN %@ AND age > %d", [big, 4], schema, root)
        #expect(templates.template("name IN %@ AND age > %d", [big, 3])?.0.bindings.count == 1)
    }

    @Test("a prepared filter on the list of a deleted owner stops as a fresh one does; a format that does not parse stops with its parse error first")
    func stopsInOrder() async {
        let deleted = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            let (kept, gone) = try realm.write { (realm.create(Person.self, value: ["id": 1]), realm.create(Person.self, value: ["id": 2])) }
            _ = kept.dogs.filter("age > %d", 1).count
            _ = kept.dogs.filter("age > %d", 2).count
            try realm.write { realm.delete(gone) }
            _ = gone.dogs.filter("age > %d", 3)
        }
        #expect(ErrorTests.stderr(deleted).contains("Object has been deleted or invalidated."))
        let unparsed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try makeRealm()
            let gone = try realm.write { realm.create(Person.self, value: ["id": 2]) }
            let dogs = gone.dogs
            try realm.write { realm.delete(gone) }
            _ = dogs.filter("age >")
        }
        #expect(ErrorTests.stderr(unparsed).contains("Invalid predicate 'age >'"))
    }

    @Test("a query run in a loop with new arguments finds what a fresh query finds")
    func resultsMatch() throws {
        let realm = try makeRealm()
        try realm.write {
            for i in 0..<200 { realm.add(Dog(value: ["id": i, "name": "dog \(i % 17)", "age": i % 13])) }
        }
        var rng = SeededRandom(seed: 5)
        for _ in 0..<50 {
            let low = Int(rng.next() % 200), high = low + Int(rng.next() % 40)
            let age = Int(rng.next() % 13)
            let prepared = realm.objects(Dog.self).filter("id BETWEEN {%d, %d} AND age != %@ OR name == %@", low, high, age, "dog 3")
            let fresh = realm.objects(Dog.self).filter(try PredicateFormat("id BETWEEN {%d, %d} AND age != %@ OR name == %@",
                argumentArray: [low, high, age, "dog 3"]))
            #expect(prepared.map(\.id) == fresh.map(\.id))
            let expected = (0..<200).filter { ($0 >= low && $0 <= high && $0 % 13 != age) || $0 % 17 == 3 }
            #expect(prepared.map(\.id) == expected)
        }
    }
}

extension PredicateTemplates {
    /// The bound predicate of `format` with `arguments` for `schema` and
    /// `root`, when a binding of its template with arguments of the same
    /// types is kept: the two steps `filter(_:_:)` takes, in one call.
    fileprivate func bound(_ format: String, _ arguments: [Any], schema: Schema, root: QueryBinder.Root) -> BoundPredicate? {
        guard let (template, values) = template(format, arguments) else { return nil }
        return Self.bound(template, values, schema: schema, root: root)
    }
}
