import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

/// What a thread of ``onSmallStack(_:)`` ran and gave back; written
/// before the thread signals, read after the caller waits.
private final class SmallStackRun<R>: @unchecked Sendable {
    var body: (() throws -> R)?
    var result: Result<R, any Error>?
    init(_ body: @escaping () throws -> R) { self.body = body }
}

/// Runs `body` on a thread with a 1 MB stack and returns what it returned
/// or throws what it threw: a recursion as deep as its input overflows
/// that stack and crashes the test process.
func onSmallStack<R>(_ body: @escaping () throws -> R) throws -> R {
    let run = SmallStackRun(body)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        run.result = Result { try run.body!() }
        run.body = nil
        done.signal()
    }
    thread.stackSize = 1 << 20
    thread.start()
    done.wait()
    return try run.result!.get()
}

/// `lhs && rhs` as a `#Predicate` expression built at run time.
private func conjunction<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R)
    -> any StandardPredicateExpression<Bool>
{
    PredicateExpressions.Conjunction(lhs: lhs, rhs: rhs)
}

/// `!operand` as a `#Predicate` expression built at run time.
private func negation<E: StandardPredicateExpression<Bool>>(_ operand: E) -> any StandardPredicateExpression<Bool> {
    PredicateExpressions.Negation(operand)
}

/// `$0.int == value` as a `#Predicate` expression built at run time.
private func intEquals(_ object: PredicateExpressions.Variable<AllTypes>, _ value: Int) -> any StandardPredicateExpression<Bool> {
    PredicateExpressions.Equal(lhs: PredicateExpressions.KeyPath(root: object, keyPath: \AllTypes.int), rhs: PredicateExpressions.Value(value))
}

/// Predicates, typed queries, filter chains and key paths built past any
/// nesting a person writes (issue 42): each answers or throws a typed error
/// on a thread with a 1 MB stack, where a walk that recursed as deep as its
/// input overflowed the stack and crashed the process.
@Suite("Deep predicates")
struct DeepPredicateTests {
    @Test("a key path of 10,000 link hops through a cycle answers on a 1 MB stack")
    func tenThousandLinkHops() throws {
        let counts = try onSmallStack {
            let realm = try makeRealm(types: [Chain.self])
            try realm.write {
                let a = realm.create(Chain.self, value: ["id": 1, "label": "a"])
                let b = realm.create(Chain.self, value: ["id": 2, "label": "b"])
                a.next = b
                b.next = a
                realm.create(Chain.self, value: ["id": 3, "label": "end"])
            }
            let chains = realm.objects(Chain.self)
            let even = String(repeating: "next.", count: 10_000)
            return [
                chains.filter(even + "label == 'a'").count,
                chains.filter("next." + even + "label == 'a'").count,
                // A null link on the way reaches null, as one hop does.
                chains.filter(even + "label == nil").count,
                chains.where { $0.next.next.next.label == "b" }.count,
            ]
        }
        #expect(counts == [1, 1, 1, 1])
    }

    @Test("a path that fans out keeps the order and the nulls of a depth-first walk")
    func fanOutOrder() throws {
        let realm = try makeRealm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            let bob = realm.create(Person.self, value: ["id": 2, "name": "Bob"])
            let kennel = realm.create(Kennel.self, value: ["name": "k"])
            for (id, owner) in [(1, bob), (2, nil), (3, ann)] {
                kennel.residents.append(realm.create(Dog.self, value: ["id": id, "name": "d\(id)", "owner": owner as Any]))
            }
        }
        let kennel = try #require(realm.objects(Kennel.self).first)
        let bound = try QueryBinder.bind(try PredicateFormat("ANY residents.owner.name == 'x'").tree, schema: realm.instance.schema,
            root: .table(realm.instance.tableKey(for: Kennel.self)))
        guard case .comparison(let c) = bound, case .path(let path) = c.lhs else { Issue.record("not a path: \(bound)"); return }
        var variables: [Value] = []
        let values = QueryEvaluator(snapshot: realm.instance.current).values(of: .path(path), .link(kennel.ref!.link), &variables)
        #expect(values == [.string("Bob"), .null, .string("Ann")])
        #expect(realm.objects(Kennel.self).filter("ANY residents.owner.name == nil").count == 1)
        #expect(realm.objects(Kennel.self).filter("ALL residents.owner.name BEGINSWITH 'A'").count == 0)
    }

    @Test("a typed query of 10,000 terms alternating && and || on the running result is a typed error on a 1 MB stack")
    func alternatingRunningResult() throws {
        let error = try onSmallStack { () -> ShoalError? in
            let realm = try makeRealm()
            let int = Query<AllTypes>().int
            var running = int == 0
            for i in 1..<10_000 { running = i % 2 == 1 ? running && int != i : running || int == i }
            do { _ = try realm.objects(AllTypes.self).filtered(try running.predicateTree()) } catch { return error as? ShoalError }
            return nil
        }
        #expect(error?.code == .invalidQuery)
        #expect(error?.message.contains("nests more than \(PredicateTree.maximumDepth) levels deep") == true)
        #expect(error?.context["maximumDepth"] == "\(PredicateTree.maximumDepth)")
    }

    @Test("typed queries of 10,000 terms that && and || chain flat answer on a 1 MB stack")
    func flatChains() throws {
        let counts = try onSmallStack {
            let realm = try makeRealm()
            try realm.write {
                for i in 0..<20 { realm.add(AllTypes(value: ["int": i, "bool": i % 3 == 0])) }
            }
            let all = realm.objects(AllTypes.self)
            // `a && b || c && d || ...`, as Swift's precedence groups it.
            let sumOfProducts = all.where { object in
                let (int, bool) = (object.int, object.bool)
                var query = int == -1 && bool == true
                for i in stride(from: 0, to: 10_000, by: 2) { query = query || int == i && bool == false }
                return query
            }
            let conjunction = all.where { object in
                let int = object.int
                var query = int >= 0
                for i in 1..<10_000 where i != 4 { query = query && int != i }
                return query
            }
            return [sumOfProducts.count, conjunction.count, all.where { !(!($0.int == 4)) }.count]
        }
        // Even and not a multiple of 3 below 20: 2, 4, 8, 10, 14, 16.
        #expect(counts == [6, 2, 1])
    }

    @Test("100,000 nested ! in a typed query and in a format string are typed errors on a 1 MB stack")
    func hundredThousandNots() throws {
        let errors = try onSmallStack { () -> [ShoalError?] in
            let query = Query<AllTypes>()
            var nots = query.int == 1
            for _ in 0..<100_000 { nots = !nots }
            var typed: ShoalError?
            do { _ = try nots.predicateTree() } catch { typed = error as? ShoalError }
            var format: ShoalError?
            do { _ = try PredicateFormat(String(repeating: "!", count: 100_000) + "int == 1") } catch { format = error as? ShoalError }
            return [typed, format]
        }
        for error in errors {
            #expect(error?.code == .invalidQuery)
            #expect(error?.message.contains("nests more than \(PredicateTree.maximumDepth) levels deep") == true)
        }
    }

    @Test("a #Predicate nested past the limits is a typed error; 140 &&s built at run time translate flat on a 1 MB stack")
    func foundationPredicates() throws {
        let outcome = try onSmallStack { () -> (ShoalError?, ShoalError?, Int) in
            let nots = Predicate<AllTypes> { object in
                var expression = intEquals(object, 1)
                for _ in 0..<PredicateTree.maximumDepth { expression = negation(expression) }
                return expression
            }
            var tooDeep: ShoalError?
            do { _ = try PredicateFormat(nots) } catch { tooDeep = error as? ShoalError }
            let longest = Predicate<AllTypes> { object in
                var expression = intEquals(object, 0)
                for i in 1...(PredicateTranslator.maximumExpressionDepth + 10) { expression = conjunction(expression, intEquals(object, i)) }
                return expression
            }
            var tooLong: ShoalError?
            do { _ = try PredicateFormat(longest) } catch { tooLong = error as? ShoalError }
            let flat = Predicate<AllTypes> { object in
                var expression = intEquals(object, 0)
                for i in 1..<140 { expression = conjunction(expression, intEquals(object, i)) }
                return expression
            }
            guard case .and(let operands) = try PredicateFormat(flat).tree else { return (tooDeep, tooLong, 0) }
            return (tooDeep, tooLong, operands.count)
        }
        #expect(outcome.0?.message.contains("nests more than \(PredicateTree.maximumDepth) levels deep") == true)
        #expect(outcome.1?.message.contains("nest more than \(PredicateTranslator.maximumExpressionDepth) levels deep") == true)
        #expect(outcome.2 == 140)
        let deepest = Predicate<AllTypes> { object in
            var expression = intEquals(object, 1)
            for _ in 0..<(PredicateTree.maximumDepth - 1) { expression = negation(expression) }
            return expression
        }
        #expect(try PredicateFormat(deepest).tree.nestingDepth == PredicateTree.maximumDepth)
    }

    @Test("10,000 chained filters AND into one flat conjunction and answer on a 1 MB stack")
    func tenThousandChainedFilters() throws {
        let (count, explanation) = try onSmallStack {
            let realm = try makeRealm()
            try realm.write {
                realm.add(AllTypes(value: ["int": 1, "string": "a"]))
                realm.add(AllTypes(value: ["int": 2, "string": "a"]))
            }
            var results = realm.objects(AllTypes.self).filter("string == 'a'")
            for _ in 0..<10_000 { results = results.filter("int == 1") }
            return (results.count, results.explain())
        }
        #expect(count == 1)
        #expect(explanation.hasPrefix("scan AllTypes (2 objects); then test string == \"a\" AND int == 1 AND int == 1"))
    }

    @Test("chained filters are conjuncts: an indexed term of a later filter drives the query")
    func chainedFilterUsesIndex() throws {
        let realm = try makeRealm()
        try realm.write {
            for id in 0..<20 { realm.create(Dog.self, value: ["id": id, "name": "d\(id)", "age": id % 5]) }
        }
        let dogs = realm.objects(Dog.self).filter("name BEGINSWITH 'd'").filter("age == 3")
        #expect(dogs.count == 4)
        #expect(dogs.explain().hasPrefix("index lookup on Dog where age == 3 (4 candidates)"))
    }

    @Test("sorting by a plain string column whose strings share a 200 KB prefix works on a 1 MB stack")
    func sortSharedLongPrefix() throws {
        let prefix = String(repeating: "a", count: 200_000)
        let names = (0..<20).map { prefix + String(UnicodeScalar(UInt8(100 - $0))) }
        var snapshot = StringSortTests.dogs(named: names.map(Value.string))
        StringSortTests.storeStrings(coded: false, in: &snapshot)
        let elements = (0..<names.count).map { Value.link(Link(table: TableKey(0), key: ObjectKey(Int64($0)))) }
        let sorted = try onSmallStack { [snapshot] in OrderingStep.sortByStringColumn(elements, StringSortTests.byName(), snapshot) }
        #expect(sorted == elements.reversed())
    }

    @Test("the deepest predicate each front end accepts binds, plans, describes and counts on a 1 MB stack")
    func deepestAccepted() throws {
        let outcome = try onSmallStack { () -> (depth: Int, oddSubqueries: Bool, counts: [Int]) in
            let realm = try makeRealm()
            try realm.write {
                realm.add(AllTypes(value: ["int": 1, "bool": true]))
                let kennel = realm.create(Kennel.self, value: ["name": "k"])
                kennel.neighbours.insert(kennel)
            }
            let all = realm.objects(AllTypes.self)
            // Levels of `NOT` (with parentheses after it) and of `OR` inside `AND`, to the limit.
            let object = Query<AllTypes>()
            var query = object.int == 1
            var matches = true
            for level in 0... {
                let next = level % 2 == 0 ? object.bool == true && (object.int == 2 || query) : !query
                guard case .success = next.logical else { break }
                query = next
                if level % 2 == 1 { matches.toggle() }
            }
            let depth = try query.predicateTree().nestingDepth
            let format = query.description
            let typed = all.where { _ in query }
            // The most SUBQUERYs that nest, each over the kennel's one
            // neighbour (itself): each negates the one inside.
            let levels = (PredicateTree.maximumDepth - 1) / PredicateTree.subqueryLevels
            var subqueries = "$k\(levels).name == 'x'"
            for level in stride(from: levels, through: 2, by: -1) {
                subqueries = "SUBQUERY($k\(level - 1).neighbours, $k\(level), \(subqueries)).@count == 0"
            }
            subqueries = "SUBQUERY(neighbours, $k1, \(subqueries)).@count == 0"
            let kennels = realm.objects(Kennel.self).filter(subqueries)
            let deeper = "SUBQUERY(neighbours, $k0, "
                + subqueries.replacingOccurrences(of: "SUBQUERY(neighbours,", with: "SUBQUERY($k0.neighbours,") + ").@count == 0"
            let deeperRefused = (try? PredicateFormat(deeper)) == nil
            let truth = matches ? 1 : 0
            return (depth, levels % 2 == 1, [typed.count - truth, all.filter(format).count - truth,
                try PredicateFormat(format).tree.nestingDepth, typed.explain().isEmpty ? 0 : 1, kennels.count, kennels.explain().isEmpty ? 0 : 1, deeperRefused ? 1 : 0])
        }
        #expect(outcome.depth >= PredicateTree.maximumDepth - 1)
        #expect(outcome.counts == [0, 0, outcome.depth, 1, outcome.oddSubqueries ? 1 : 0, 1, 1])
    }

    @Test("a tree's nesting depth is the parser's count for its description: at the limit it parses, past it it is refused")
    func nestingDepthMatchesParser() throws {
        let comparison = PredicateTree.comparison(.init(lhs: .keyPath(.init(components: [.property("int")])), op: .equal,
            rhs: .constant(.init(value: .int(1)))))
        var variables = 0
        let shapes: [(String, (PredicateTree) -> PredicateTree)] = [
            ("NOT", { .not($0) }),
            ("OR inside AND", { .and([comparison, .or([comparison, $0])]) }),
            ("NOT of AND", { .not(.and([comparison, $0])) }),
            ("AND inside OR", { .or([comparison, .and([comparison, $0])]) }),
            ("SUBQUERY", { tree in
                variables += 1
                let subquery = PredicateTree.Subquery(collection: .init(components: [.property("neighbours")]), variable: "v\(variables)",
                    predicate: tree)
                return .comparison(.init(lhs: .subqueryCount(subquery), op: .equal, rhs: .constant(.init(value: .int(0)))))
            }),
        ]
        for (name, wrap) in shapes {
            var tree = comparison
            var reached = false
            while tree.nestingDepth <= PredicateTree.maximumDepth + 1 {
                let depth = tree.nestingDepth
                reached = reached || depth >= PredicateTree.maximumDepth
                if depth <= PredicateTree.maximumDepth {
                    #expect(throws: Never.self, "\(name), \(depth) levels") { try PredicateFormat(tree.description) }
                } else {
                    #expect(throws: ShoalError.self, "\(name), \(depth) levels") { try PredicateFormat(tree.description) }
                }
                let deeper = wrap(tree)
                guard deeper.nestingDepth > depth else {
                    // `AND` inside `OR` needs no parentheses: it nests nothing.
                    #expect(name == "AND inside OR")
                    #expect(throws: Never.self) { try PredicateFormat(deeper.description) }
                    break
                }
                tree = deeper
            }
            #expect(reached || name == "AND inside OR", "\(name)")
        }
        let subquery = try PredicateFormat("SUBQUERY(neighbours, $k, NOT $k.name == 'a').@count == 0")
        #expect(subquery.tree.nestingDepth == 2 + PredicateTree.subqueryLevels)
    }

    @Test("the binder refuses a tree nested past the limit that no front end made, without describing it")
    func binderRefusesDeepTree() throws {
        let realm = try makeRealm()
        var tree = try PredicateFormat("int == 1").tree
        for _ in 0..<PredicateTree.maximumDepth { tree = .not(tree) }
        let schema = realm.instance.schema
        let root = QueryBinder.Root.table(realm.instance.tableKey(for: AllTypes.self))
        let error = #expect(throws: ShoalError.self) { try QueryBinder.bind(tree, schema: schema, root: root) }
        #expect(error?.message == "Invalid predicate: " + PredicateTree.tooDeepReason)
        #expect(throws: ShoalError.self) { try realm.objects(AllTypes.self).filtered(tree) }
        let named = #expect(throws: ShoalError.self) { try QueryBinder.bind(tree, schema: schema, root: root, format: "deep") }
        #expect(named?.message == "Invalid predicate 'deep': " + PredicateTree.tooDeepReason)
    }
}
