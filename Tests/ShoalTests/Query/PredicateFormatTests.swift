import Foundation
import Testing

@testable import Shoal

private enum Color: String, Sendable { case red }
private enum Level: Int, Sendable { case high = 3 }
private struct Unsupported: Sendable {}

/// The error `PredicateFormat` throws for `format`; records an issue when it parses.
private func formatError(_ format: String, _ arguments: Any...) -> ShoalError? {
    formatError(format, argumentArray: arguments)
}

private func formatError(_ format: String, argumentArray arguments: [Any]) -> ShoalError? {
    do {
        let parsed = try PredicateFormat(format, argumentArray: arguments)
        Issue.record("expected '\(format)' to fail, got \(parsed)")
        return nil
    } catch let error as ShoalError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// The right-hand side of the single comparison `format` parses to.
private func rhs(_ format: String, _ arguments: Any...) throws -> PredicateTree.Expression {
    let parsed = try PredicateFormat(format, argumentArray: arguments)
    guard case .comparison(let comparison) = parsed.tree else {
        Issue.record("\(format) is not a single comparison")
        throw CancellationError()
    }
    return comparison.rhs
}

private func constant(_ value: Value) -> PredicateTree.Expression { .constant(PredicateTree.Constant(value: value)) }

extension QueryTests {
    @Suite struct PredicateFormatTests {
        @Test("a syntax error is an invalidQuery ShoalError naming position, token and expectation")
        func errorMessage() throws {
            let error = try #require(formatError("age >"))
            #expect(error.code == .invalidQuery)
            #expect(error.message == "Invalid predicate 'age >': expected a value after '>' at position 5 (end of input)")
            #expect(
                error.context == ["predicate": "age >", "position": "5", "token": "", "expected": "a value"]
            )
        }

        @Test(
            "error messages quote the predicate and the offending token",
            arguments: [
                (
                    "age > 3 3",
                    "Invalid predicate 'age > 3 3': expected AND, OR or the end of the predicate after '3' at position 8 (found '3')"
                ),
                ("name == 'abc", "Invalid predicate 'name == 'abc': unterminated string at position 8 (found ''abc')"),
                ("(a == 1", "Invalid predicate '(a == 1': expected ')' after '1' at position 7 (end of input)"),
                ("", "Invalid predicate '': expected a predicate at position 0 (end of input)"),
                ("a ~ 1", "Invalid predicate 'a ~ 1': invalid character '~' at position 2 (found '~')"),
                (
                    "age >= %@",
                    "Invalid predicate 'age >= %@': missing argument 0 for '%@' (0 arguments given) at position 7 (found '%@')"
                ),
            ]
        )
        func errorMessages(format: String, message: String) throws {
            let error = try #require(formatError(format))
            #expect(error.message == message)
            #expect(error.code == .invalidQuery)
        }

        @Test(
            "%@ accepts every supported Swift value",
            arguments: [
                (5 as any Sendable, Value.int(5)), (Int8(-8), .int(-8)), (Int16(16), .int(16)), (Int32(32), .int(32)),
                (Int64.min, .int(.min)), (UInt8(8), .int(8)), (UInt16(16), .int(16)), (UInt32.max, .int(4_294_967_295)),
                (UInt(7), .int(7)), (UInt64(Int64.max), .int(.max)),
                (2.5, .double(2.5)), (Float(1.25), .float(1.25)), (CGFloat(0.5), .double(0.5)),
                (true, .bool(true)), (false, .bool(false)), (NSNumber(value: true), .bool(true)), (NSNumber(value: false), .bool(false)),
                ("text", .string("text")), ("a b c".dropFirst(2), .string("b c")),
                (Date(timeIntervalSince1970: 1_000), .date(Date(timeIntervalSince1970: 1_000))),
                (Data([1, 2, 3]), .data(Data([1, 2, 3]))),
                (
                    UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!,
                    .uuid(UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!)
                ),
                (try! ObjectId(string: "5f2a0b9c1d2e3f4a5b6c7d8e"), .objectId(try! ObjectId(string: "5f2a0b9c1d2e3f4a5b6c7d8e"))),
                (Decimal128(stringLiteral: "1.5"), .decimal(Decimal128(stringLiteral: "1.5"))),
                (Decimal(string: "2.25")!, .decimal(Decimal128(Decimal(string: "2.25")!))),
                (Int?.none, .null), (Int?.some(4), .int(4)), (String??.some(.none), .null),
                (Color.red, .string("red")), (Level.high, .int(3)),
            ]
        )
        func scalarArguments(argument: any Sendable, value: Value) throws {
            let parsed = try rhs("x == %@", argument)
            #expect(parsed == constant(value), "\(type(of: argument)) became \(parsed)")
        }

        @Test(
            "arrays and sets become lists for IN and BETWEEN",
            arguments: [
                ([1, 2, 3] as any Sendable, [Value.int(1), .int(2), .int(3)]),
                (["a", "b"], [.string("a"), .string("b")]),
                ([Int?.some(1), nil], [.int(1), .null]),
                ([Int](), []),
                ([Color.red], [.string("red")]),
                (Set([7]), [.int(7)]),
                (ContiguousArray([1.5]), [.double(1.5)]),
            ]
        )
        func listArguments(argument: any Sendable, values: [Value]) throws {
            let parsed = try rhs("x IN %@", argument)
            let expected = PredicateTree.ConstantList(elements: values.map { PredicateTree.Constant(value: $0) })
            #expect(parsed == .list(expected))
        }

        @Test("a list argument prints as a list literal, and BETWEEN takes a two-element array")
        func listArgumentDescription() throws {
            #expect(try PredicateFormat("age IN %@", [1, 2, 3]).description == "age IN {1, 2, 3}")
            #expect(try PredicateFormat("age BETWEEN %@", [1, 5]).description == "age BETWEEN {1, 5}")
            #expect(try PredicateFormat("age BETWEEN $0", [1.5, 2.5]).description == "age BETWEEN {1.5, 2.5}")
            let error = try #require(formatError("age BETWEEN %@", [1, 2, 3]))
            #expect(
                error.message
                    == "Invalid predicate 'age BETWEEN %@': BETWEEN needs a list of exactly two values, not 3 at position 12 (found '%@')"
            )
        }

        @Test(
            "%K names a key path, escaping keywords and splitting on dots",
            arguments: [
                ("name", "name == 1"), ("owner.name", "owner.name == 1"), ("dogs.@count", "dogs.@count == 1"),
                ("and", "#and == 1"), ("owner.IN", "owner.#IN == 1"), ("@links.Person.dogs", "@links.Person.dogs == 1"),
            ]
        )
        func keyPathArguments(keyPath: String, description: String) throws {
            #expect(try PredicateFormat("%K == 1", keyPath).description == description)
            #expect(try PredicateFormat("%K == 1", Substring(keyPath)).description == description)
        }

        @Test("%K can take a modifier and be continued, and its key path points at the placeholder")
        func keyPathArgumentInContext() throws {
            let parsed = try PredicateFormat("ANY %K.age > %@", "dogs", 3)
            #expect(parsed.description == "ANY dogs.age > 3")
            guard case .comparison(let comparison) = parsed.tree, case .keyPath(let keyPath) = comparison.lhs else {
                Issue.record("unexpected tree \(parsed)")
                return
            }
            #expect(keyPath.componentSources == [4..<6, 7..<10])
            #expect(keyPath.source == 0..<10)
        }

        @Test(
            "%d, %i, %u take integers and %f takes floating-point numbers",
            arguments: [
                ("x == %d", 5 as any Sendable, Value.int(5)), ("x == %i", Int32(-3), .int(-3)),
                ("x == %u", UInt8(9), .int(9)), ("x == %ld", Int64(1 << 40), .int(1 << 40)),
                ("x == %lld", Int16(2), .int(2)), ("x == %lu", UInt(3), .int(3)),
                ("x == %f", 0.5, .double(0.5)), ("x == %lf", Float(0.25), .float(0.25)),
                ("x == %f", CGFloat(2), .double(2)), ("x == %d", Int?.some(1), .int(1)),
            ]
        )
        func numericSpecifiers(format: String, argument: any Sendable, value: Value) throws {
            #expect(try rhs(format, argument) == constant(value))
        }

        @Test(
            "an argument of the wrong type is reported with its index and the placeholder",
            arguments: [
                ("x == %d", 1.5 as any Sendable, "argument 0 for '%d' must be an integer, not Double", 5),
                ("x == %i", "1", "argument 0 for '%i' must be an integer, not String", 5),
                ("x == %d", true, "argument 0 for '%d' must be an integer, not Bool", 5),
                ("x == %d", Int?.none, "argument 0 for '%d' must be an integer, not nil", 5),
                ("x == %f", 1, "argument 0 for '%f' must be a floating-point number, not Int", 5),
                ("%K == 1", 1, "argument 0 for '%K' must be a key path string, not Int", 0),
                ("%K == 1", "a..b", "argument 0 for '%K' is not a key path: 'a..b'", 0),
                ("%K == 1", "", "argument 0 for '%K' is not a key path: ''", 0),
                ("%K == 1", "a.", "argument 0 for '%K' is not a key path: 'a.'", 0),
                ("x == %@", Unsupported(), "argument 0 for '%@' has unsupported type Unsupported", 5),
                ("x == $0", [[1]], "argument 0 for '$0' has an element of unsupported type Array<Int> at index 0", 5),
                ("x == %@", ["a": 1], "argument 0 for '%@' has an element of unsupported type (key: String, value: Int) at index 0", 5),
                ("x == %@", UInt64.max, "argument 0 for '%@' is out of the range of Int64: 18446744073709551615", 5),
                ("x IN {%@}", [1], "argument 0 is a list, and lists cannot be nested", 6),
                ("m[%@] == 1", 1.5, "expected a string key, an index, '*', FIRST, LAST or SIZE after '['", 2),
            ]
        )
        func illTypedArguments(format: String, argument: any Sendable, reason: String, position: Int) throws {
            let error = try #require(formatError(format, argument))
            #expect(error.message.hasPrefix("Invalid predicate '\(format)': \(reason) at position \(position) "))
            #expect(error.context["position"] == String(position))
        }

        @Test("ill-typed and missing arguments name the argument in the context")
        func argumentContext() throws {
            let error = try #require(formatError("a == %@ AND b == %d", 1, "x"))
            #expect(error.context["argument"] == "1")
            #expect(error.context["position"] == "17")
            #expect(error.context["token"] == "%d")
        }

        @Test(
            "missing arguments are reported with the index of the first one missing",
            arguments: [
                ("a == %@ AND b == %@", 1, "missing argument 1 for '%@' (1 argument given)", 17),
                ("a == $2", 2, "missing argument 2 for '$2' (2 arguments given)", 5),
                ("%K == 1", 0, "missing argument 0 for '%K' (0 arguments given)", 0),
                ("a == %d", 0, "missing argument 0 for '%d' (0 arguments given)", 5),
            ]
        )
        func missingArguments(format: String, count: Int, reason: String, position: Int) throws {
            let error = try #require(formatError(format, argumentArray: Array(repeating: 1, count: count)))
            #expect(error.message.hasPrefix("Invalid predicate '\(format)': \(reason) at position \(position) "))
            #expect(error.context["argument"] != nil)
        }

        @Test(
            "an argument no placeholder uses is an error",
            arguments: [
                ("age > 3", [5 as any Sendable], "argument 0 (Int) is not used by any placeholder (1 argument given, 0 used)"),
                ("a == $1", [1, "x"], "argument 0 (Int) is not used by any placeholder (2 arguments given, 1 used)"),
                ("a == %@", ["x", 2.5], "argument 1 (Double) is not used by any placeholder (2 arguments given, 1 used)"),
                ("a == %@", [1, Int?.none], "argument 1 (nil) is not used by any placeholder (2 arguments given, 1 used)"),
            ]
        )
        func extraArguments(format: String, arguments: [any Sendable], reason: String) throws {
            let error = try #require(formatError(format, argumentArray: arguments))
            #expect(error.message == "Invalid predicate '\(format)': \(reason)")
            #expect(error.context["position"] == nil)
        }

        @Test("$n takes an argument by index, reusable, alongside %@ which counts on its own")
        func positionalArguments() throws {
            #expect(try PredicateFormat("a == $0 OR b == $0", 5).description == "a == 5 OR b == 5")
            #expect(try PredicateFormat("a == %@ AND b == $1", "x", 2).description == "a == \"x\" AND b == 2")
            #expect(try PredicateFormat("a == $1 AND b == %@ AND c == %@", 1, 2).description == "a == 2 AND b == 1 AND c == 2")
            #expect(try PredicateFormat("age IN {$0, %@, 3}", 1).description == "age IN {1, 1, 3}")
            #expect(try PredicateFormat("scores[$0] > 1", "math").description == "scores[\"math\"] > 1")
        }

        @Test("placeholders inside quotes are text")
        func quotedPlaceholders() throws {
            #expect(try rhs("name == '%@'") == constant(.string("%@")))
            #expect(try rhs("name == \"$0 %K\"") == constant(.string("$0 %K")))
        }

        @Test("arguments record their index and the placeholder's position")
        func argumentAnnotations() throws {
            guard case .list(let list) = try rhs("a IN %@", [1, 2]) else {
                Issue.record("not a list")
                return
            }
            #expect(list.argumentIndex == 0)
            #expect(list.source == 5..<7)
            guard case .constant(let constant) = try rhs("a == $0", 7) else {
                Issue.record("not a constant")
                return
            }
            #expect(constant.argumentIndex == 0)
            #expect(constant.source == 5..<7)
        }

        @Test(
            "description prints the canonical form",
            arguments: [
                ("age = 3", "age == 3"), ("age <> 3", "age != 3"), ("age =< 3", "age <= 3"), ("age => 3", "age >= 3"),
                ("name beginswith[c] 'a'", "name BEGINSWITH[c] \"a\""), ("name Like[dc] 'a?b*'", "name LIKE[cd] \"a?b*\""),
                ("a == 1 && b == 2 || !c == 3", "a == 1 AND b == 2 OR NOT c == 3"),
                ("(a == 1 || b == 2) && c == 3", "(a == 1 OR b == 2) AND c == 3"),
                ("NOT (a == 1 AND b == 2)", "NOT (a == 1 AND b == 2)"), ("NOT (a == 1)", "NOT a == 1"),
                ("((a == 1))", "a == 1"), ("truepredicate or FalsePredicate", "TRUEPREDICATE OR FALSEPREDICATE"),
                ("SOME dogs.age > 1", "ANY dogs.age > 1"), ("none dogs.age > 1", "NONE dogs.age > 1"),
                ("dogs.@size > 1", "dogs.@count > 1"), ("dogs.@AVG.age > 1", "dogs.@avg.age > 1"),
                ("subquery(dogs, $d, $d.age > 1).@size > 0", "SUBQUERY(dogs, $d, $d.age > 1).@count > 0"),
                ("x == YES", "x == true"), ("x == NULL", "x == nil"), ("x == 0x10", "x == 16"), ("x == -0", "x == 0"),
                ("x == 1e3", "x == 1000.0"), ("x == 2.50f", "x == 2.5f"), ("x == -INF", "x == -inf"),
                ("x == 'it\\'s'", "x == \"it's\""), ("x IN {}", "x IN {}"),
                ("scores['math'] > 1", "scores[\"math\"] > 1"), ("#not == 1", "#not == 1"),
                ("x == 1970-01-01@00:00:01:500000000", "x == T1:500000000"),
                ("x == uuid(137decc8-b300-4954-a233-f89909f4fd89)", "x == uuid(137DECC8-B300-4954-A233-F89909F4FD89)"),
            ]
        )
        func canonicalDescription(format: String, description: String) throws {
            #expect(try PredicateFormat(format).description == description)
        }

        @Test(
            "description parses back to the same predicate",
            arguments: [
                "age > 3 AND (name BEGINSWITH[cd] 'R' OR NOT owner.name == nil)",
                "ANY dogs.age >= 2 AND ALL dogs.name != 'x' AND NONE dogs.age < 0",
                "dogs.@count > 1 OR scores.@max < 3.5 OR dogs.@sum.weight <= 7.5f OR @links.@count == 0",
                "@links.Person.dogs.name CONTAINS 'a' AND scores.@keys == 'k' AND scores.@values > 1",
                "SUBQUERY(owners, $o, SUBQUERY($o.tags, $t, $t LIKE[c] '*a?').@count > 0 AND $o.age > 1).@count == 2",
                "age BETWEEN {1, 10} AND id IN {oid(5f2a0b9c1d2e3f4a5b6c7d8e), oid(000000000000000000000000)}",
                "u == uuid(137DECC8-B300-4954-A233-F89909F4FD89) AND d == B64\"aGVsbG8gd29ybGQ=\"",
                "born > T1570000000:123000000 AND born < T-86400:-250000000 AND born != 2021-02-20@17:30:15",
                "s == 'tab\\tquote\\\"back\\\\slash\\nnl\\u0001ctl é 😀' AND x == nan AND y == -inf",
                "x == 9223372036854775807 AND y == -9223372036854775808 AND z == 1e-300 AND w == 0.1",
                "#in == 1 AND owner.#and == 2 AND contains CONTAINS 'x'",
                "TRUEPREDICATE AND NOT (FALSEPREDICATE OR a == true)",
            ]
        )
        func roundTrip(format: String) throws {
            let parsed = try PredicateFormat(format)
            let reparsed = try PredicateFormat(parsed.description)
            #expect(reparsed.tree == parsed.tree, "\(parsed.description)")
            #expect(reparsed.description == parsed.description)
        }

        @Test(
            "arguments round-trip through description too",
            arguments: [
                Date(timeIntervalSince1970: 1_613_842_215.25) as any Sendable, Data([0, 255, 7]), "q\"uote\\",
                UUID(), ObjectId.generate(), -12, 3.0, Float(0.1), Double.pi, [1, 2], ["x", "y"], Int?.none,
            ]
        )
        func argumentRoundTrip(argument: any Sendable) throws {
            let parsed = try PredicateFormat("x IN %@", argument)
            let reparsed = try PredicateFormat(parsed.description)
            #expect(reparsed.tree == parsed.tree, "\(parsed.description)")
        }
    }
}
