import Foundation
import Testing

@testable import Shoal

/// What binding and parsing `format` gives with no cache in the way.
private func uncached(_ format: String, _ arguments: [Any]) throws(PredicateFormatError) -> PredicateTree {
    var parser = PredicateParser(tokens: try PredicateArguments.bind(PredicateLexer.tokenize(format), to: arguments))
    return try parser.parsePredicate()
}

/// Everything a tree holds, argument indexes and source ranges included
/// (which the tree's `==` ignores).
private func everything(_ tree: PredicateTree) -> String {
    var text = ""
    dump(tree, to: &text)
    return text
}

/// The error parsing gives, or `nil`.
private func failure(_ body: () throws(PredicateFormatError) -> PredicateTree) -> PredicateFormatError? {
    do throws(PredicateFormatError) {
        _ = try body()
        return nil
    } catch { return error }
}

@Suite("A format parsed again with new arguments")
struct PredicateTemplateTests {
    /// A cache of this test's own, so that no other test's formats flush it.
    let templates = PredicateTemplates()

    private func parse(_ format: String, _ arguments: [Any]) throws(PredicateFormatError) -> PredicateTree {
        try PredicateParser.parse(format, arguments: arguments, templates: templates)
    }

    /// Parses `format` with each argument list in turn, each time checking
    /// the tree against an uncached parse, and that `templates` trees were
    /// kept for it (one per shape: the later calls were served by them).
    private func expectSameAsUncached(_ format: String, _ argumentLists: [[Any]], templates expected: Int = 1,
        sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        for arguments in argumentLists {
            let tree = try parse(format, arguments)
            let fresh = try uncached(format, arguments)
            #expect(tree == fresh, "\(format) with \(arguments)", sourceLocation: sourceLocation)
            #expect(everything(tree) == everything(fresh), "\(format) with \(arguments)", sourceLocation: sourceLocation)
        }
        #expect(templates.trees(format).count == expected, "\(format)", sourceLocation: sourceLocation)
    }

    @Test("puts the new values into the tree: scalars, lists, list literals, positional arguments, subqueries")
    func newValues() throws {
        try expectSameAsUncached("id BETWEEN {%d, %d}", [[1, 1_000], [500, 1_499], [7, 9]])
        try expectSameAsUncached("age > %@ AND name BEGINSWITH[c] %@", [[3, "a"], [4, "b"], [3.5, "b"]])
        try expectSameAsUncached("name IN %@", [[["Rex", "Fido"]], [["Spot", "Max"]]])
        try expectSameAsUncached("age BETWEEN %@", [[[1, 5]], [[2, 9]]])
        try expectSameAsUncached("$0 < age OR age == $0 OR NOT (weight > $1)", [[1, 2.5], [7, 8.5]])
        try expectSameAsUncached("{%@, 'x', $1} CONTAINS name", [["a", "b"], ["c", "d"]])
        try expectSameAsUncached(
            "SUBQUERY(dogs, $dog, $dog.age > %d AND $dog.name == %@).@count >= %d", [[1, "Rex", 2], [5, "Fido", 0]])
        try expectSameAsUncached("age == %@", [[NSNull()], [Optional<Int>.none as Any], [4]])
    }

    @Test("tells apart the arguments that shape the parse: %K paths, map keys, scalars from lists, BETWEEN's list length")
    func shapes() throws {
        try expectSameAsUncached("%K == %@", [["age", 3], ["owner.name", "Ann"], ["dogs.@count", 2], ["age", 4]], templates: 3)
        try expectSameAsUncached("scores[%@] > %d", [["math", 1], ["art", 2], ["math", 3]], templates: 2)
        try expectSameAsUncached("name == %@", [["Rex"], [["Rex", "Fido"]], ["Spot"]], templates: 2)
        // `IN` takes a list of any length: one template serves them all.
        try expectSameAsUncached("age IN %@", [[[1, 2]], [[1, 2, 3]], [[]], [[4, 5]]])
        // Two spellings of "é" are equal `String`s; the parse keeps the one given.
        try expectSameAsUncached("%K == 1", [["caf\u{E9}"], ["cafe\u{301}"], ["caf\u{E9}"]], templates: 2)
    }

    @Test("keeps no argument's value, and no template for an argument that %K and a value both take")
    func keepsNoValues() throws {
        _ = try parse("name IN %@ AND age > %d AND %K == $2", [[String(repeating: "x", count: 200)], 3, "weight"])
        let kept = templates.trees("name IN %@ AND age > %d AND %K == $2")
        #expect(kept.isEmpty)  // argument 1 is both a value and a key path
        _ = try parse("name IN %@ AND age > %d", [[String(repeating: "x", count: 200)], 3])
        let trees = templates.trees("name IN %@ AND age > %d")
        #expect(trees.count == 1)
        #expect(trees.first?.description == "name IN {nil} AND age > nil")
    }

    @Test("gives the same errors as a first parse when the arguments no longer fit")
    func errors() throws {
        let cases: [(format: String, good: [Any], bad: [Any])] = [
            ("age == %d", [3], ["three"]),  // not an integer
            ("age == %f", [3.5], [3]),  // not a floating-point number
            ("age == %@ AND name == %@", [3, "a"], [3]),  // missing argument
            ("age == %@", [3], [3, 4]),  // unused argument
            ("age BETWEEN %@", [[1, 2]], [[1, 2, 3]]),  // BETWEEN needs two
            ("age BETWEEN {%@, 2}", [1], [[1, 2]]),  // nested list
            ("scores[%@] == 1", ["math"], [1.5]),  // a subscript takes a string or an integer
            ("%K == 1", ["age"], [3]),  // %K needs a string
            ("%K == 1", ["age"], ["age..name"]),  // not a key path
            ("age == %@", [3], [NSObject()]),  // unsupported type
        ]
        for (format, good, bad) in cases {
            _ = try parse(format, good)
            #expect(templates.trees(format).count == 1, "\(format)")
            let cached = failure { () throws(PredicateFormatError) in try parse(format, bad) }
            let fresh = failure { () throws(PredicateFormatError) in try uncached(format, bad) }
            #expect(cached != nil, "\(format) with \(bad)")
            #expect(cached == fresh, "\(format) with \(bad)")
            // The good arguments still parse, from the template, after the failure.
            try expectSameAsUncached(format, [good])
        }
    }

    @Test("keeps at most its capacity of formats, and of shapes per format")
    func bounded() throws {
        for i in 0..<(templates.capacity + 10) {
            _ = try parse("age == %d AND name != 'many \(i)'", [i])
        }
        #expect(templates.count <= templates.capacity)
        #expect(templates.count > 0)
        let format = "age BETWEEN %@ AND name == 'shapes'"
        for length in 0..<(templates.shapesPerFormat + 5) {
            _ = try? parse(format, [Array(0..<length)])
            _ = try parse(format, [[length, length + 1]])
        }
        // Only BETWEEN's list of two parses: one template.
        #expect(templates.trees(format).count == 1)
        let other = "%K == 1"
        for i in 0..<(templates.shapesPerFormat + 5) { _ = try parse(other, ["p\(i)"]) }
        #expect(templates.trees(other).count == templates.shapesPerFormat)
        // The latest shapes are kept, and each still gives its own tree.
        try expectSameAsUncached(other, [["p\(templates.shapesPerFormat + 4)"], ["p0"]], templates: templates.shapesPerFormat)
    }

    @Test("is shared safely by threads parsing at once")
    func concurrent() async throws {
        let templates = self.templates
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for i in 0..<200 {
                        let arguments: [Any] = [task, i, ["a", "b"].prefix(i % 3).map { $0 }]
                        let format = "age == %d AND weight > %d AND name IN %@"
                        let tree = try PredicateParser.parse(format, arguments: arguments, templates: templates)
                        #expect(everything(tree) == everything(try uncached(format, arguments)))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("for 2,000 random formats and arguments, a cached parse equals an uncached one")
    func randomized() throws {
        var rng = SystemRandomNumberGenerator()
        let properties = ["age", "name", "weight", "owner.name", "dogs.age"]
        func argument(_ specifier: String) -> Any {
            switch specifier {
            case "%d": return Int.random(in: -5...5, using: &rng)
            case "%f": return Double.random(in: -5...5, using: &rng)
            default:
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: return Int.random(in: -5...5, using: &rng)
                case 1: return ["Rex", "Fido", "Spot"].randomElement(using: &rng)!
                case 2: return (0..<Int.random(in: 0...3, using: &rng)).map { _ in Int.random(in: 0...9, using: &rng) }
                case 3: return NSNull()
                default: return Double.random(in: 0...1, using: &rng)
                }
            }
        }
        func comparison() -> (String, [String]) {
            let property = properties.randomElement(using: &rng)!
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: return ("\(property) == %@", ["%@"])
            case 1: return ("\(property) > %d", ["%d"])
            case 2: return ("\(property) BETWEEN {%f, %d}", ["%f", "%d"])
            case 3: return ("%K IN %@", ["%K", "%@"])
            default: return ("scores[%@] != %@", ["%M", "%@"])
            }
        }
        let formats: [(String, [String])] = (0..<40).map { _ in
            var parts: [String] = []
            var specifiers: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let (text, used) = comparison()
                parts.append(Bool.random(using: &rng) ? text : "NOT (\(text))")
                specifiers += used
            }
            return (parts.joined(separator: Bool.random(using: &rng) ? " AND " : " OR "), specifiers)
        }
        for _ in 0..<2_000 {
            let (format, specifiers) = formats.randomElement(using: &rng)!
            let arguments: [Any] = specifiers.map { specifier in
                switch specifier {
                case "%K": return properties.randomElement(using: &rng)!
                case "%M": return ["math", "art"].randomElement(using: &rng)!
                default: return argument(specifier)
                }
            }
            let cached = Result { () throws(PredicateFormatError) in try parse(format, arguments) }
            let fresh = Result { () throws(PredicateFormatError) in try uncached(format, arguments) }
            switch (cached, fresh) {
            case (.success(let a), .success(let b)):
                #expect(everything(a) == everything(b), "\(format) with \(arguments)")
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(format) with \(arguments)")
            default:
                Issue.record("\(format) with \(arguments): cached \(cached), uncached \(fresh)")
            }
        }
    }
}
