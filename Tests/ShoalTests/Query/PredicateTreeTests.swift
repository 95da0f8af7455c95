import Foundation
import Testing

@testable import Shoal

private func leaf(_ name: String) -> PredicateTree {
    .comparison(
        PredicateTree.Comparison(
            lhs: .keyPath(PredicateTree.KeyPath(components: [.property(name)])), op: .equal,
            rhs: .constant(PredicateTree.Constant(value: .int(1)))
        )
    )
}

extension QueryTests {
    @Suite struct PredicateTreeTests {
        @Test("conjunction flattens nested ANDs and collapses zero or one operand")
        func conjunction() {
            #expect(PredicateTree.conjunction([]) == .truePredicate)
            #expect(PredicateTree.conjunction([leaf("a")]) == leaf("a"))
            #expect(
                PredicateTree.conjunction([.and([leaf("a"), leaf("b")]), leaf("c")])
                    == .and([leaf("a"), leaf("b"), leaf("c")])
            )
            #expect(
                PredicateTree.conjunction([.or([leaf("a"), leaf("b")]), leaf("c")])
                    == .and([.or([leaf("a"), leaf("b")]), leaf("c")])
            )
        }

        @Test("disjunction flattens nested ORs and collapses zero or one operand")
        func disjunction() {
            #expect(PredicateTree.disjunction([]) == .falsePredicate)
            #expect(PredicateTree.disjunction([leaf("a")]) == leaf("a"))
            #expect(
                PredicateTree.disjunction([leaf("a"), .or([leaf("b"), leaf("c")])])
                    == .or([leaf("a"), leaf("b"), leaf("c")])
            )
        }

        @Test("a hand-built tree prints in the format syntax")
        func handBuiltDescription() {
            let tree = PredicateTree.not(.or([leaf("a"), .and([leaf("b"), leaf("c")])]))
            #expect(tree.description == "NOT (a == 1 OR b == 1 AND c == 1)")
            let variable = PredicateTree.KeyPath(root: .variable("x"), components: [])
            #expect(variable.description == "$x")
            let operation = PredicateTree.CollectionOperation(
                function: .sum, collection: PredicateTree.KeyPath(components: [.property("items")]), property: "price"
            )
            #expect(operation.description == "items.@sum.price")
        }

        @Test("constants compare by kind and value, ignoring where they came from")
        func constantEquality() {
            let three = PredicateTree.Constant(value: .int(3), argumentIndex: 0, source: 4..<6)
            #expect(three == PredicateTree.Constant(value: .int(3)))
            #expect(three != PredicateTree.Constant(value: .double(3)))
            #expect(three.hashValue == PredicateTree.Constant(value: .int(3)).hashValue)
            #expect(PredicateTree.Constant(value: .double(.nan)) == PredicateTree.Constant(value: .double(.nan)))
        }

        @Test("every expression reports its source range")
        func expressionSources() throws {
            let parsed = try PredicateParser.parse("a.@count == 1 AND SUBQUERY(b, $x, $x == 1).@count IN {1}")
            guard case .and(let operands) = parsed, case .comparison(let first) = operands[0],
                case .comparison(let second) = operands[1]
            else {
                Issue.record("unexpected tree \(parsed)")
                return
            }
            #expect(first.lhs.source == 0..<8)
            #expect(first.rhs.source == 12..<13)
            #expect(second.lhs.source == 18..<49)
            #expect(second.rhs.source == 53..<56)
        }

        @Test("a later stage can locate its own errors by a node's source range")
        func locatedErrors() throws {
            let format = "owner.nmae == 1"
            let parsed = try PredicateParser.parse(format)
            guard case .comparison(let comparison) = parsed, case .keyPath(let keyPath) = comparison.lhs else {
                Issue.record("unexpected tree \(parsed)")
                return
            }
            let error = PredicateFormatError(
                reason: "unknown property 'nmae' on class 'Dog'", range: keyPath.source(ofComponent: 1), in: format
            ).shoalError(format: format, code: .invalidKeyPath)
            #expect(error.code == .invalidKeyPath)
            #expect(
                error.message
                    == "Invalid predicate 'owner.nmae == 1': unknown property 'nmae' on class 'Dog' at position 6 (found 'nmae')"
            )
            #expect(error.context["position"] == "6")
            let unlocated = PredicateFormatError(reason: "no such class 'Cat'", range: nil, in: format).shoalError(format: format)
            #expect(unlocated.message == "Invalid predicate 'owner.nmae == 1': no such class 'Cat'")
            #expect(unlocated.code == .invalidQuery)
        }
    }
}
