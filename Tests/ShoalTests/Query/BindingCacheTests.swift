import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

/// Everything a bound predicate holds (its values' kinds included).
private func everything(_ predicate: BoundPredicate) -> String {
    var text = ""
    dump(predicate, to: &text)
    return text
}

@Suite("A predicate bound again with new values")
struct BindingCacheTests {
    /// A cache of this test's own, so that no other test's predicates flush it.
    let cache = BindingCache()
    let schema: Schema

    init() throws {
        schema = try makeRealm().instance.schema
    }

    private func root(_ className: String) -> QueryBinder.Root { .table(schema.tableByName[className]!) }

    /// `format` with `arguments` bound on `className` through `cache`, and
    /// with no cache: each as a dump of the predicate or the error's message.
    private func bindBoth(_ className: String, _ format: String, _ arguments: [Any], cache: BindingCache? = nil)
        throws -> (cached: String, fresh: String)
    {
        let tree = try PredicateFormat(format, argumentArray: arguments).tree
        let root = root(className)
        let schema = schema
        func run(_ body: () throws(ShoalError) -> BoundPredicate) -> String {
            do throws(ShoalError) { return everything(try body()) } catch { return "error: \(error.message)" }
        }
        let cached = run { () throws(ShoalError) in
            try (cache ?? self.cache).bound(tree, root: root) { () throws(ShoalError) in
                try QueryBinder.bind(tree, schema: schema, root: root, format: format)
            }
        }
        let fresh = run { () throws(ShoalError) in try QueryBinder.bind(tree, schema: schema, root: root, format: format) }
        return (cached, fresh)
    }

    /// Binds `format` with each argument list in turn, checking each against
    /// a binding with no cache, and that `kept` predicates were kept for
    /// it (one per shape: the later calls were served by them).
    private func expectSameAsUncached(_ className: String, _ format: String, _ argumentLists: [[Any]], kept: Int = 1,
        sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        let cache = BindingCache()
        for arguments in argumentLists {
            let (cached, fresh) = try bindBoth(className, format, arguments, cache: cache)
            #expect(cached == fresh, "\(format) with \(arguments)", sourceLocation: sourceLocation)
        }
        #expect(cache.count == kept, "\(format)", sourceLocation: sourceLocation)
    }

    @Test("puts the new values in: scalars, lists, constants moved right, subqueries, nulls")
    func newValues() throws {
        try expectSameAsUncached("Dog", "id BETWEEN {%d, %d}", [[1, 1_000], [500, 1_499], [7, 9]])
        try expectSameAsUncached("Dog", "age > %@ AND name BEGINSWITH[c] %@", [[3, "a"], [4, "b"], [5, "Rex"]])
        try expectSameAsUncached("Dog", "%d < age OR %d >= age", [[1, 2], [7, 8]])
        try expectSameAsUncached("Dog", "%@ IN tags AND NOT (name IN %@)", [["good", ["Rex", "Fido"]], ["bad", ["a", "b"]]])
        try expectSameAsUncached("Dog", "scores['math'] > %f", [[1.5], [2.5]])
        try expectSameAsUncached(
            "Person", "SUBQUERY(dogs, $dog, $dog.age > %d AND $dog.name == %@).@count >= %d", [[1, "Rex", 2], [5, "Fido", 0]])
        try expectSameAsUncached("Person", "dogs.@count > %d OR ANY dogs.age == %d", [[1, 2], [3, 4]])
        try expectSameAsUncached("Dog", "owner == nil AND breed != %@", [["pug"], ["lab"]])
        try expectSameAsUncached("Dog", "TRUEPREDICATE AND age == %@", [[NSNull()], [Optional<Int>.none as Any]])
    }

    @Test("makes a double a float where a float property takes it, as binding does")
    func floats() throws {
        try expectSameAsUncached("AllTypes", "float == %@ OR float IN {%@, 2.5}", [[1.5, 2.0], [0.1, 3.75]])
        try expectSameAsUncached("AllTypes", "double > %@ AND float < %@", [[1.5, 2.5], [0.1, 0.2]])
        let tree = try PredicateFormat("float == %@", 0.1).tree
        let bound = try cache.bound(tree, root: root("AllTypes")) { () throws(ShoalError) in
            try QueryBinder.bind(tree, schema: schema, root: root("AllTypes"))
        }
        let again = try PredicateFormat("float == %@", 0.3).tree
        let rebound = try cache.bound(again, root: root("AllTypes")) { () throws(ShoalError) in
            Issue.record("bound again rather than served from the cache")
            return bound
        }
        guard case .comparison(let c) = rebound, case .constant(.float(let f)) = c.rhs else {
            Issue.record("not a float constant: \(rebound)")
            return
        }
        #expect(f == Float(0.3))
    }

    @Test("tells apart values of other kinds, other classes and other roots, which bind otherwise or fail")
    func kinds() throws {
        // An int, a double, then a string: the string fails as a first binding does.
        try expectSameAsUncached("Dog", "age == %@", [[3], [3.5], ["three"], [4]], kept: 2)
        try expectSameAsUncached("Dog", "age IN %@", [[[1, 2]], [[1, "a"]], [[3, 4]]], kept: 1)
        try expectSameAsUncached("Dog", "name IN %@", [[["a"]], [["a", "b"]], [[NSNull(), "b"]], [["c", "d"]]], kept: 3)
        let cache = BindingCache()
        for className in ["Dog", "Person", "Dog"] {
            let (cached, fresh) = try bindBoth(className, "name == %@", ["Rex"], cache: cache)
            #expect(cached == fresh)
        }
        #expect(cache.count == 2)
        let error = try bindBoth("Dog", "age == %@", ["x"]).cached
        #expect(error.contains("type mismatch"))
    }

    @Test("keeps no string or data value, and no tree with many constants")
    func keepsNoValues() throws {
        let long = String(repeating: "x", count: 200)
        _ = try bindBoth("AllTypes", "string == %@ OR data == %@", [long, Data(repeating: 7, count: 300)])
        #expect(cache.count == 1)
        let kept = cache.kept.map(everything).joined()
        #expect(!kept.contains(long))
        #expect(!kept.contains("300 bytes"))
        // Served again, from the emptied predicate, with the values put back.
        let (cached, fresh) = try bindBoth("AllTypes", "string == %@ OR data == %@", [long, Data(repeating: 7, count: 300)])
        #expect(cached == fresh && cached.contains(long))
        _ = try bindBoth("Dog", "age IN %@", [Array(0..<(cache.maximumConstants + 1))])
        #expect(cache.count == 1)
    }

    @Test("keeps at most its capacity of predicates")
    func bounded() throws {
        let cache = BindingCache(capacity: 4)
        for i in 0..<20 {
            let (cached, fresh) = try bindBoth("Dog", "age == %d AND name != 'many \(i)' OR age IN %@", [i, Array(0..<(i % 7))], cache: cache)
            #expect(cached == fresh)
            #expect(cache.count <= 4)
        }
    }

    @Test("is shared safely by threads binding at once")
    func concurrent() async throws {
        let cache = cache
        let schema = schema
        let root = root("Dog")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for i in 0..<200 {
                        let format = "age == %d AND id > %@ OR name IN %@"
                        let arguments: [Any] = [task, i % 2 == 0 ? i : Double(i), ["a", "b"].prefix(i % 3).map { $0 }]
                        let tree = try PredicateFormat(format, argumentArray: arguments).tree
                        let cached = try cache.bound(tree, root: root) { () throws(ShoalError) in
                            try QueryBinder.bind(tree, schema: schema, root: root)
                        }
                        #expect(everything(cached) == everything(try QueryBinder.bind(tree, schema: schema, root: root)))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("for 2,000 random predicates and values, a cached binding equals an uncached one")
    func randomized() throws {
        var rng = SeededRandom(seed: 0xB1D0)
        /// A value of a kind `kind` names, or now and then of another.
        func argument(_ kind: String) -> Any {
            let kind = Int.random(in: 0..<10, using: &rng) == 0 ? ["int", "string", "double", "null", "bool"].randomElement(using: &rng)! : kind
            switch kind {
            case "int": return Int.random(in: -5...5, using: &rng)
            case "string": return ["Rex", "Fido", "good"].randomElement(using: &rng)!
            case "double": return Double.random(in: 0...1, using: &rng)
            case "bool": return Bool.random(using: &rng)
            default: return NSNull()
            }
        }
        // Properties by class, with the kinds of values they compare with.
        let properties: [String: [(String, [String])]] = [
            "Dog": [("age", ["int", "double"]), ("id", ["int"]), ("name", ["string"]), ("breed", ["string", "null"]),
                    ("tags", ["string"]), ("scores['a']", ["double", "int"]), ("owners.@count", ["int"]), ("owner.name", ["string"])],
            "AllTypes": [("float", ["double", "int"]), ("double", ["double", "int"]), ("int8", ["int"]), ("string", ["string"]),
                         ("bool", ["bool"]), ("any", ["int", "string", "double"])],
        ]
        let operators = ["==", "!=", ">", "<=", "BETWEEN", "IN", "BEGINSWITH[c]", "CONTAINS"]
        /// A format on `className` and the kinds of its arguments.
        func format(_ className: String) -> (String, [String]) {
            var parts: [String] = []
            var kinds: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let (property, fitting) = properties[className]!.randomElement(using: &rng)!
                let kind = fitting.randomElement(using: &rng)!
                let op = operators.randomElement(using: &rng)!
                let operand: String
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: (operand, kinds) = ("{%@, %@}", kinds + [kind, kind])
                case 1: (operand, kinds) = ("%@", kinds + ["list:" + kind])
                case 2: (operand, kinds) = (kind == "string" ? "'s'" : kind == "double" ? "1.5" : "2", kinds)
                default: (operand, kinds) = ("%@", kinds + [kind])
                }
                let text = op == "BETWEEN" || op == "IN" || Bool.random(using: &rng) ? "\(property) \(op) \(operand)" : "\(operand) \(op) \(property)"
                parts.append(Bool.random(using: &rng) ? text : "NOT (\(text))")
            }
            return (parts.joined(separator: Bool.random(using: &rng) ? " AND " : " OR "), kinds)
        }
        let formats = (0..<60).map { i in
            let className = i % 3 == 0 ? "AllTypes" : "Dog"
            return (className, format(className))
        }
        var bound = 0
        for _ in 0..<2_000 {
            let (className, (format, kinds)) = formats.randomElement(using: &rng)!
            let arguments: [Any] = kinds.map { kind in
                guard kind.hasPrefix("list:") else { return argument(kind) }
                return (0..<Int.random(in: 0...3, using: &rng)).map { _ in argument(String(kind.dropFirst(5))) }
            }
            guard let tree = try? PredicateFormat(format, argumentArray: arguments).tree else { continue }
            let (cached, fresh) = try bindBoth(className, format, arguments)
            #expect(cached == fresh, "\(tree) with \(arguments)")
            if !fresh.hasPrefix("error") { bound += 1 }
        }
        #expect(bound > 500)
    }

    @Test("serves a Realm's filters, which find the objects of each call's values")
    func realmFilters() throws {
        let realm = try makeRealm()
        try realm.write {
            for i in 0..<20 { realm.create(Dog.self, value: ["id": i, "age": i % 5, "name": "d\(i)"]) }
        }
        let cache = realm.instance.coordinator.bindingCache
        let before = cache.count
        for age in 0..<5 {
            let found = realm.objects(Dog.self).filter("age == %d", age).map(\.id)
            #expect(found == Array(stride(from: age, to: 20, by: 5)))
        }
        #expect(cache.count == before + 1)
    }
}
