import Foundation
import Testing

@testable import Shoal

/// `name.name…` as a key path expression from the queried object.
private func path(_ names: String..., modifier: PredicateTree.CollectionModifier? = nil) -> PredicateTree.Expression {
    .keyPath(PredicateTree.KeyPath(components: names.map { .property($0) }, modifier: modifier))
}

private func constant(_ value: Value) -> PredicateTree.Expression { .constant(PredicateTree.Constant(value: value)) }

private func list(_ values: Value...) -> PredicateTree.Expression {
    .list(PredicateTree.ConstantList(elements: values.map { PredicateTree.Constant(value: $0) }))
}

private func parse(_ format: String, _ arguments: Any...) throws -> PredicateTree {
    try PredicateParser.parse(format, arguments: arguments)
}

/// The single comparison `format` parses to.
private func comparison(_ format: String, _ arguments: Any...) throws -> PredicateTree.Comparison {
    let tree = try PredicateParser.parse(format, arguments: arguments)
    guard case .comparison(let comparison) = tree else {
        Issue.record("\(format) is not a single comparison: \(tree)")
        throw CancellationError()
    }
    return comparison
}

/// The tree's logical shape, naming each comparison by its left-hand side: `or(and(a,b),c)`.
private func shape(_ tree: PredicateTree) -> String {
    switch tree {
    case .truePredicate: "true"
    case .falsePredicate: "false"
    case .and(let operands): "and(" + operands.map(shape).joined(separator: ",") + ")"
    case .or(let operands): "or(" + operands.map(shape).joined(separator: ",") + ")"
    case .not(let operand): "not(\(shape(operand)))"
    case .comparison(let comparison): comparison.lhs.description
    }
}

private func parseError(_ format: String, _ arguments: Any...) -> PredicateFormatError? {
    do {
        let tree = try PredicateParser.parse(format, arguments: arguments)
        Issue.record("expected '\(format)' to fail, got \(tree)")
        return nil
    } catch {
        return error
    }
}

extension QueryTests {
    @Suite struct PredicateParserTests {
        @Test(
            "every comparison operator parses, in each of its spellings",
            arguments: [
                ("age == 3", PredicateTree.ComparisonOperator.equal), ("age = 3", .equal),
                ("age != 3", .notEqual), ("age <> 3", .notEqual),
                ("age < 3", .lessThan), ("age <= 3", .lessThanOrEqual), ("age =< 3", .lessThanOrEqual),
                ("age > 3", .greaterThan), ("age >= 3", .greaterThanOrEqual), ("age => 3", .greaterThanOrEqual),
                ("age IN 3", .in), ("age in 3", .in),
                ("age BEGINSWITH 3", .beginsWith), ("age beginsWith 3", .beginsWith),
                ("age ENDSWITH 3", .endsWith), ("age endswith 3", .endsWith),
                ("age CONTAINS 3", .contains), ("age Contains 3", .contains),
                ("age LIKE 3", .like), ("age like 3", .like),
            ]
        )
        func operators(format: String, op: PredicateTree.ComparisonOperator) throws {
            let parsed = try comparison(format)
            #expect(parsed == PredicateTree.Comparison(lhs: path("age"), op: op, rhs: constant(.int(3))))
        }

        @Test(
            "[c], [d] and [cd] set the comparison options",
            arguments: [
                ("name ==[c] 'a'", PredicateTree.ComparisonOperator.equal, "c"),
                ("name !=[d] 'a'", .notEqual, "d"),
                ("name BEGINSWITH[cd] 'a'", .beginsWith, "cd"),
                ("name ENDSWITH[c] 'a'", .endsWith, "c"),
                ("name CONTAINS[dc] 'a'", .contains, "cd"),
                ("name LIKE[C] 'a'", .like, "c"),
                ("name IN[c] 'a'", .in, "c"),
                ("name == 'a'", .equal, ""),
            ]
        )
        func options(format: String, op: PredicateTree.ComparisonOperator, letters: String) throws {
            var options: PredicateTree.ComparisonOptions = []
            if letters.contains("c") { options.insert(.caseInsensitive) }
            if letters.contains("d") { options.insert(.diacriticInsensitive) }
            let parsed = try comparison(format)
            #expect(parsed.op == op)
            #expect(parsed.options == options)
        }

        @Test(
            "NOT binds tighter than AND, and AND tighter than OR",
            arguments: [
                ("a == 1 AND b == 1 OR c == 1", "or(and(a,b),c)"),
                ("a == 1 OR b == 1 AND c == 1", "or(a,and(b,c))"),
                ("a == 1 OR b == 1 AND c == 1 OR d == 1", "or(a,and(b,c),d)"),
                ("NOT a == 1 AND b == 1", "and(not(a),b)"),
                ("NOT a == 1 OR b == 1", "or(not(a),b)"),
                ("NOT (a == 1 AND b == 1)", "not(and(a,b))"),
                ("(a == 1 OR b == 1) AND c == 1", "and(or(a,b),c)"),
                ("a == 1 && b == 1 || !c == 1", "or(and(a,b),not(c))"),
                ("a == 1 and b == 1 or not c == 1", "or(and(a,b),not(c))"),
                ("a == 1 AND (b == 1 AND c == 1)", "and(a,b,c)"),
                ("(a == 1 OR b == 1) OR c == 1", "or(a,b,c)"),
                ("NOT NOT a == 1", "not(not(a))"),
                ("!(!(a == 1))", "not(not(a))"),
                ("((a == 1))", "a"),
                ("TRUEPREDICATE", "true"),
                ("falsepredicate", "false"),
                ("TRUEPREDICATE AND NOT FALSEPREDICATE", "and(true,not(false))"),
            ]
        )
        func precedence(format: String, expected: String) throws {
            #expect(shape(try parse(format)) == expected)
        }

        @Test(
            "modifiers record what was written",
            arguments: [
                ("ANY dogs.age > 1", PredicateTree.CollectionModifier?.some(.anyOf)), ("any dogs.age > 1", .anyOf),
                ("SOME dogs.age > 1", .anyOf), ("ALL dogs.age > 1", .allOf), ("all dogs.age > 1", .allOf),
                ("NONE dogs.age > 1", .noneOf), ("None dogs.age > 1", .noneOf), ("dogs.age > 1", nil),
            ]
        )
        func modifiers(format: String, modifier: PredicateTree.CollectionModifier?) throws {
            let parsed = try comparison(format)
            #expect(parsed.lhs == path("dogs", "age", modifier: modifier))
        }

        @Test(
            "key paths become component lists",
            arguments: [
                ("name == 1", [PredicateTree.Component.property("name")]),
                ("owner.address.city == 1", [.property("owner"), .property("address"), .property("city")]),
                ("scores['math'] == 1", [.property("scores"), .mapKey("math")]),
                ("scores[\"math\"] == 1", [.property("scores"), .mapKey("math")]),
                ("owner.scores['a b'] == 1", [.property("owner"), .property("scores"), .mapKey("a b")]),
                ("scores.@keys == 1", [.property("scores"), .keys]),
                ("scores.@values == 1", [.property("scores"), .values]),
                ("@links.Person.dogs.name == 1", [.backlinks(className: "Person", property: "dogs"), .property("name")]),
                ("owner.@links.Dog.owner.age == 1", [.property("owner"), .backlinks(className: "Dog", property: "owner"), .property("age")]),
                ("owner.in == 1", [.property("owner"), .property("in")]),
                ("owner.NOT == 1", [.property("owner"), .property("NOT")]),
                ("#and == 1", [.property("and")]),
                ("contains CONTAINS 1", [.property("contains")]),
                ("like == 1", [.property("like")]),
                ("between BETWEEN {1, 2}", [.property("between")]),
            ]
        )
        func keyPaths(format: String, components: [PredicateTree.Component]) throws {
            let parsed = try comparison(format)
            #expect(parsed.lhs == .keyPath(PredicateTree.KeyPath(components: components)))
        }

        @Test(
            "collection operators apply to the key path before them",
            arguments: [
                ("dogs.@count > 1", PredicateTree.CollectionFunction.count, ["dogs"], String?.none),
                ("dogs.@size > 1", .count, ["dogs"], nil),
                ("owner.dogs.@COUNT > 1", .count, ["owner", "dogs"], nil),
                ("scores.@min > 1", .min, ["scores"], nil),
                ("scores.@max > 1", .max, ["scores"], nil),
                ("scores.@sum > 1", .sum, ["scores"], nil),
                ("scores.@avg > 1", .average, ["scores"], nil),
                ("dogs.@max.age > 1", .max, ["dogs"], "age"),
                ("dogs.@avg.in > 1", .average, ["dogs"], "in"),
            ]
        )
        func collectionOperators(format: String, function: PredicateTree.CollectionFunction, names: [String], property: String?)
            throws
        {
            let parsed = try comparison(format)
            guard case .collectionOperation(let operation) = parsed.lhs else {
                Issue.record("\(format) parsed to \(parsed.lhs)")
                return
            }
            #expect(operation.function == function)
            #expect(operation.collection == PredicateTree.KeyPath(components: names.map { .property($0) }))
            #expect(operation.property == property)
        }

        @Test("@links.@count counts every object linking here, and ANY may precede @count")
        func backlinkCountAndModifiedCount() throws {
            guard case .collectionOperation(let all) = try comparison("@links.@count > 0").lhs else {
                Issue.record("not a collection operation")
                return
            }
            #expect(all.function == .count)
            #expect(all.collection.components == [.allBacklinks])

            guard case .collectionOperation(let any) = try comparison("ANY dogs.toys.@count > 2").lhs else {
                Issue.record("not a collection operation")
                return
            }
            #expect(any.collection == PredicateTree.KeyPath(components: [.property("dogs"), .property("toys")], modifier: .anyOf))
        }

        @Test("SUBQUERY parses its collection, variable and predicate, and roots paths at the variable")
        func subquery() throws {
            let parsed = try comparison("SUBQUERY(dogs, $dog, $dog.age > 3 AND $dog.name BEGINSWITH 'R').@count > 0")
            guard case .subqueryCount(let subquery) = parsed.lhs else {
                Issue.record("not a subquery: \(parsed.lhs)")
                return
            }
            #expect(subquery.collection == PredicateTree.KeyPath(components: [.property("dogs")]))
            #expect(subquery.variable == "dog")
            let age = PredicateTree.KeyPath(root: .variable("dog"), components: [.property("age")])
            let name = PredicateTree.KeyPath(root: .variable("dog"), components: [.property("name")])
            #expect(
                subquery.predicate
                    == .and([
                        .comparison(PredicateTree.Comparison(lhs: .keyPath(age), op: .greaterThan, rhs: constant(.int(3)))),
                        .comparison(PredicateTree.Comparison(lhs: .keyPath(name), op: .beginsWith, rhs: constant(.string("R")))),
                    ])
            )
            #expect(parsed.op == .greaterThan)
            #expect(parsed.rhs == constant(.int(0)))
        }

        @Test("a subquery variable can stand alone, and subqueries nest with their own variables")
        func nestedSubqueries() throws {
            let parsed = try comparison(
                "subquery(owners, $o, SUBQUERY($o.tags, $t, $t ==[c] 'x').@size > 0 AND $o.age > 1).@count == 2"
            )
            guard case .subqueryCount(let outer) = parsed.lhs,
                case .and(let operands) = outer.predicate,
                case .comparison(let first) = operands[0],
                case .subqueryCount(let inner) = first.lhs
            else {
                Issue.record("unexpected shape: \(parsed)")
                return
            }
            #expect(inner.collection == PredicateTree.KeyPath(root: .variable("o"), components: [.property("tags")]))
            #expect(
                inner.predicate
                    == .comparison(
                        PredicateTree.Comparison(
                            lhs: .keyPath(PredicateTree.KeyPath(root: .variable("t"), components: [])), op: .equal,
                            rhs: constant(.string("x")), options: .caseInsensitive
                        )
                    )
            )
        }

        @Test(
            "list literals hold constants and may be empty",
            arguments: [
                ("age IN {1, 2, 3}", list(.int(1), .int(2), .int(3))),
                ("age IN {}", list()),
                ("age IN {'a', nil, true, 1.5, NO}", list(.string("a"), .null, .bool(true), .double(1.5), .bool(false))),
                ("age BETWEEN {1, 10}", list(.int(1), .int(10))),
                ("age == {1}", list(.int(1))),
            ]
        )
        func lists(format: String, rhs: PredicateTree.Expression) throws {
            #expect(try comparison(format).rhs == rhs)
        }

        @Test(
            "keyword constants parse to values",
            arguments: [
                ("a == true", Value.bool(true)), ("a == TRUE", .bool(true)), ("a == YES", .bool(true)),
                ("a == yes", .bool(true)), ("a == false", .bool(false)), ("a == FALSE", .bool(false)),
                ("a == NO", .bool(false)), ("a == nil", .null), ("a == NIL", .null), ("a == NULL", .null),
                ("a == null", .null), ("a == inf", .double(.infinity)), ("a == Infinity", .double(.infinity)),
                ("a == NaN", .double(.nan)),
            ]
        )
        func keywordConstants(format: String, value: Value) throws {
            #expect(try comparison(format).rhs == constant(value))
        }

        @Test("constants and key paths may be on either side")
        func operandOrder() throws {
            let parsed = try comparison("'Rex' IN dogs.name")
            #expect(parsed == PredicateTree.Comparison(lhs: constant(.string("Rex")), op: .in, rhs: path("dogs", "name")))
            let twoPaths = try comparison("age < owner.age")
            #expect(twoPaths == PredicateTree.Comparison(lhs: path("age"), op: .lessThan, rhs: path("owner", "age")))
        }

        @Test("nodes keep the source ranges a binder needs to point at a key path")
        func sourceRanges() throws {
            // 0         1         2         3
            // 0123456789012345678901234567890123456
            // ANY owner.dogs.age >= 3 AND scores['m'] == 1.5
            let tree = try parse("ANY owner.dogs.age >= 3 AND scores['m'] == 1.5")
            guard case .and(let operands) = tree, case .comparison(let first) = operands[0],
                case .comparison(let second) = operands[1], case .keyPath(let ages) = first.lhs,
                case .constant(let three) = first.rhs, case .keyPath(let scores) = second.lhs
            else {
                Issue.record("unexpected shape: \(tree)")
                return
            }
            #expect(ages.source == 0..<18)
            #expect(ages.componentSources == [4..<9, 10..<14, 15..<18])
            #expect(ages.source(ofComponent: 2) == 15..<18)
            #expect(ages.source(ofComponent: 3) == nil)
            #expect(first.source == 19..<21)
            #expect(three.source == 22..<23)
            #expect(scores.componentSources == [28..<34, 34..<39])
            #expect(second.rhs.source == 43..<46)
        }

        @Test("collection operations, subqueries and lists record where they were written")
        func compoundSourceRanges() throws {
            // 0         1         2         3         4         5
            // 012345678901234567890123456789012345678901234567890123456
            // dogs.@max.age > 1 OR SUBQUERY(dogs, $d, $d.age > 1).@count IN {1, 2}
            let tree = try parse("dogs.@max.age > 1 OR SUBQUERY(dogs, $d, $d.age > 1).@count IN {1, 2}")
            guard case .or(let operands) = tree, case .comparison(let first) = operands[0],
                case .comparison(let second) = operands[1], case .collectionOperation(let max) = first.lhs,
                case .subqueryCount(let subquery) = second.lhs, case .list(let list) = second.rhs,
                case .comparison(let inner) = subquery.predicate, case .keyPath(let dogAge) = inner.lhs
            else {
                Issue.record("unexpected shape: \(tree)")
                return
            }
            #expect(max.source == 0..<13)
            #expect(max.collection.source == 0..<4)
            #expect(max.propertySource == 10..<13)
            #expect(subquery.source == 21..<58)
            #expect(dogAge.source == 40..<46)
            #expect(dogAge.componentSources == [43..<46])
            #expect(list.source == 62..<68)
            #expect(list.elements.map(\.source) == [63..<64, 66..<67])
        }

        @Test("equality ignores source ranges and argument indices but not value kinds")
        func equality() throws {
            #expect(try parse("age > 3") == parse("   age   >   3"))
            #expect(try parse("age > 3") == parse("age > %@", 3))
            #expect(try parse("age > 3") != parse("age > 3.0"))
            #expect(try parse("age > 3.0") != parse("age > 3.0f"))
            #expect(try parse("age == nan") == parse("age == NAN"))
            #expect(Set([try parse("a == 1"), try parse("a = 1"), try parse("a == 2")]).count == 2)
        }

        @Test(
            "syntax errors say what was expected, after what, where",
            arguments: [
                ("age >", "expected a value after '>'", 5, String?.none),
                ("", "expected a predicate", 0, nil),
                ("   ", "expected a predicate", 3, nil),
                ("age", "expected a comparison operator after 'age'", 3, nil),
                ("age 3", "expected a comparison operator after 'age'", 4, "3"),
                ("age > 3 3", "expected AND, OR or the end of the predicate after '3'", 8, "3"),
                ("age > 3)", "expected AND, OR or the end of the predicate after '3'", 7, ")"),
                ("(age > 3", "expected ')' after '3'", 8, nil),
                ("age > 3 AND", "expected a predicate after 'AND'", 11, nil),
                ("AND age > 3", "expected a predicate", 0, "AND"),
                ("NOT", "expected a predicate after 'NOT'", 3, nil),
                ("age > > 3", "expected a value after '>'", 6, ">"),
                ("age == TRUEPREDICATE", "expected a value after '=='", 7, "TRUEPREDICATE"),
                ("in == 3", "expected a predicate", 0, "in"),
                ("ANY > 3", "expected a key path after 'ANY'", 4, ">"),
                ("owner. == 3", "expected a property name after '.'", 7, "=="),
                ("owner.'x' == 3", "expected a property name after '.'", 6, "'x'"),
                ("age BETWEEN 3", "expected a list of two values after 'BETWEEN'", 12, "3"),
                ("age BETWEEN", "expected a list of two values after 'BETWEEN'", 11, nil),
                ("age BETWEEN {1}", "BETWEEN needs a list of exactly two values, not 1", 12, "{"),
                ("age BETWEEN {1, 2, 3}", "BETWEEN needs a list of exactly two values, not 3", 12, "{"),
                ("age <[c] 3", "'[c]' cannot follow '<' (options apply to ==, !=, IN, BEGINSWITH, ENDSWITH, CONTAINS and LIKE)", 5, "[c]"),
                ("age BETWEEN[c] {1, 2}", "'[c]' cannot follow 'BETWEEN' (options apply to ==, !=, IN, BEGINSWITH, ENDSWITH, CONTAINS and LIKE)", 11, "[c]"),
                ("age IN {1, age}", "expected a constant after ','", 11, "age"),
                ("age IN {1 2}", "expected ',' or '}' after '1'", 10, "2"),
                ("age IN {1,", "expected a constant after ','", 10, nil),
                ("age IN {{1}}", "expected a constant after '{'", 8, "{"),
                ("scores[1.5] == 1", "expected a string key, an index, '*', FIRST, LAST or SIZE after '['", 7, "1.5"),
                ("scores['a' == 1", "expected ']' after ''a''", 11, "=="),
                ("dogs.@count.x == 1", "Invalid keypath 'dogs.@count.x': @count must appear at the end of a keypath.", 5, "@count"),
                ("dogs.@foo == 1", "unknown collection operator '@foo' (expected @count, @size, @min, @max, @sum, @avg, @type, @links, @keys or @values)", 5, "@foo"),
                ("@count == 1", "Invalid keypath '@count': collection operation '@count' must be applied to a collection", 0, "@count"),
                ("ALL dogs.@max.age > 1", "'ALL' cannot be combined with '@max'", 0, "ALL"),
                ("@links == 1", "expected '.' and a class name after '@links'", 7, "=="),
                ("@links.Person == 1", "expected '.' and a property name after 'Person'", 14, "=="),
                ("@links.3 == 1", "expected a class name or @count after '.'", 7, "3"),
                ("$dog.age > 1", "undeclared variable '$dog' (variables are declared by SUBQUERY)", 0, "$dog"),
                ("SUBQUERY(dogs, dog, dog.age > 1).@count > 0", "expected a variable such as '$item' after ','", 15, "dog"),
                ("SUBQUERY(dogs.@count, $d, $d.age > 1).@count > 0", "expected a key path to a collection after '@count'", 9, "dogs"),
                ("SUBQUERY(dogs, $d, $d.age > 1) > 0", "expected '.@count' after ')'", 31, ">"),
                ("SUBQUERY(dogs, $d, $d.age > 1).@max > 0", "expected @count after '.'", 31, "@max"),
                ("SUBQUERY(dogs $d, $d.age > 1).@count > 0", "expected ',' after 'dogs'", 14, "$d"),
                ("SUBQUERY dogs", "expected '(' after 'SUBQUERY'", 9, "dogs"),
                ("SUBQUERY(a, $x, SUBQUERY(b, $x, $x == 1).@count > 0).@count > 0", "variable '$x' is already declared by an enclosing SUBQUERY", 28, "$x"),
                ("SUBQUERY(a, $x, $x == 1).@count > 0 AND $x == 1", "undeclared variable '$x' (variables are declared by SUBQUERY)", 40, "$x"),
                ("dogs[true] == 1", "expected a string key, an index, '*', FIRST, LAST or SIZE after '['", 5, "true"),
                ("dogs.@keys['a'] == 1", "a subscript must follow a property name", 10, "["),
            ]
        )
        func syntaxErrors(format: String, reason: String, position: Int, token: String?) throws {
            let error = try #require(parseError(format))
            #expect(error.reason == reason)
            #expect(error.position == position)
            #expect(error.token == token)
        }

        @Test("an 'expected' error records what was expected on its own")
        func expectedField() throws {
            let error = try #require(parseError("age >"))
            #expect(error.expected == "a value")
            let operatorError = try #require(parseError("age 3"))
            #expect(operatorError.expected == "a comparison operator")
        }
    }
}
