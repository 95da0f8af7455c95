import Foundation
import Testing

@testable import Shoal

extension QueryTests {
    @Suite struct PredicateLexerTests {
        /// The kinds of the tokens of `source`, without the final `.end`.
        private func kinds(_ source: String) throws -> [PredicateToken.Kind] {
            let tokens = try PredicateLexer.tokenize(source)
            #expect(tokens.last?.kind == .end)
            return tokens.dropLast().map(\.kind)
        }

        /// The lexer error for `source`; records an issue when it lexes.
        private func lexError(_ source: String) -> PredicateFormatError? {
            do {
                let tokens = try PredicateLexer.tokenize(source)
                Issue.record("expected a lexer error, got \(tokens.map(\.kind))")
                return nil
            } catch {
                return error
            }
        }

        /// Whether two values are the same kind and equal (NaN equals NaN).
        private func same(_ a: Value, _ b: Value) -> Bool {
            PredicateTree.Constant(value: a) == PredicateTree.Constant(value: b)
        }

        @Test(
            "every operator spelling lexes to its operator",
            arguments: [
                ("==", PredicateToken.Kind.comparison(.equal)), ("=", .comparison(.equal)),
                ("!=", .comparison(.notEqual)), ("<>", .comparison(.notEqual)),
                ("<", .comparison(.lessThan)), ("<=", .comparison(.lessThanOrEqual)), ("=<", .comparison(.lessThanOrEqual)),
                (">", .comparison(.greaterThan)), (">=", .comparison(.greaterThanOrEqual)),
                ("=>", .comparison(.greaterThanOrEqual)),
                ("&&", .and), ("||", .or), ("!", .not),
                ("(", .leftParen), (")", .rightParen), ("{", .leftBrace), ("}", .rightBrace),
                ("[", .leftBracket), ("]", .rightBracket), (",", .comma), (".", .dot),
            ]
        )
        func symbols(source: String, kind: PredicateToken.Kind) throws {
            #expect(try kinds(source) == [kind])
        }

        @Test("operators need no surrounding spaces")
        func adjacentSymbols() throws {
            #expect(
                try kinds("a>=-3&&!b<>c")
                    == [
                        .identifier("a"), .comparison(.greaterThanOrEqual), .literal(.int(-3)), .and, .not,
                        .identifier("b"), .comparison(.notEqual), .identifier("c"),
                    ]
            )
        }

        @Test("a dot after a path step is a separator, elsewhere it may start a number")
        func dotAfterPathStep() throws {
            #expect(try kinds("a.5") == [.identifier("a"), .dot, .literal(.int(5))])
            #expect(try kinds("$v.5") == [.variable("v"), .dot, .literal(.int(5))])
            #expect(try kinds("m['k'].5") == [.identifier("m"), .leftBracket, .literal(.string("k")), .rightBracket, .dot, .literal(.int(5))])
            #expect(try kinds("a IN .5") == [.identifier("a"), .keyword(.in), .literal(.double(0.5))])
            #expect(try kinds("{.5,.25}") == [.leftBrace, .literal(.double(0.5)), .comma, .literal(.double(0.25)), .rightBrace])
        }

        @Test("keywords are matched in any case", arguments: PredicateKeyword.allCases)
        func keywords(keyword: PredicateKeyword) throws {
            let word = keyword.rawValue
            for spelling in [word, word.lowercased(), word.prefix(1) + word.dropFirst().lowercased()] {
                #expect(try kinds(String(spelling)) == [.keyword(keyword)], "\(spelling)")
            }
        }

        @Test(
            "identifiers follow Swift's rules, and # escapes a keyword",
            arguments: [
                ("age", "age"), ("_private", "_private"), ("camelCase2", "camelCase2"), ("café", "café"),
                ("#and", "and"), ("#IN", "IN"), ("T123", "T123"), ("uuid", "uuid"), ("oid", "oid"), ("B64", "B64"),
                ("Tname", "Tname"),
            ]
        )
        func identifiers(source: String, name: String) throws {
            #expect(try kinds(source) == [.identifier(name)])
        }

        @Test(
            "literals decode to values of the right kind",
            arguments: [
                ("42", Value.int(42)), ("-7", .int(-7)), ("+3", .int(3)), ("0", .int(0)),
                ("0x1F", .int(31)), ("0XfF", .int(255)), ("-0x10", .int(-16)),
                ("9223372036854775807", .int(.max)), ("-9223372036854775808", .int(.min)),
                ("0x7FFFFFFFFFFFFFFF", .int(.max)), ("-0x8000000000000000", .int(.min)),
                ("1.5", .double(1.5)), (".5", .double(0.5)), ("-.25", .double(-0.25)), ("1e3", .double(1000)),
                ("1.5E-3", .double(0.0015)), ("2e+2", .double(200)), ("2.5f", .float(2.5)), ("3f", .float(3)),
                ("-inf", .double(-.infinity)), ("+INFINITY", .double(.infinity)), ("-nan", .double(.nan)),
                ("'single'", .string("single")), ("\"double\"", .string("double")), ("''", .string("")),
                (#"'it\'s'"#, .string("it's")), (#""say \"hi\"""#, .string("say \"hi\"")),
                (#"'a\\b\/c'"#, .string("a\\b/c")), (#"'\n\r\t\b\f\0'"#, .string("\n\r\t\u{8}\u{C}\0")),
                (#"'\u00e9'"#, .string("é")), (#"'\uD83D\uDE00'"#, .string("😀")), ("'é 😀'", .string("é 😀")),
                ("'%@ $0'", .string("%@ $0")),
                ("T1570000000:0", .date(Date(timeIntervalSince1970: 1_570_000_000))),
                ("T0:500000000", .date(Date(timeIntervalSince1970: 0.5))),
                ("T-1:-500000000", .date(Date(timeIntervalSince1970: -1.5))),
                ("2021-02-20@17:30:15:0", .date(Date(timeIntervalSince1970: 1_613_842_215))),
                ("2021-02-20T17:30:15", .date(Date(timeIntervalSince1970: 1_613_842_215))),
                ("1970-01-01@00:00:00:250000000", .date(Date(timeIntervalSince1970: 0.25))),
                ("1969-12-31@23:59:59", .date(Date(timeIntervalSince1970: -1))),
                ("2000-02-29@00:00:00", .date(Date(timeIntervalSince1970: 951_782_400))),
                (
                    "uuid(137DECC8-B300-4954-A233-F89909F4FD89)",
                    .uuid(UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!)
                ),
                (
                    "UUID(137decc8-b300-4954-a233-f89909f4fd89)",
                    .uuid(UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!)
                ),
                ("oid(5f2a0b9c1d2e3f4a5b6c7d8e)", .objectId(try! ObjectId(string: "5f2a0b9c1d2e3f4a5b6c7d8e"))),
                ("B64\"aGVsbG8=\"", .data(Data("hello".utf8))), ("B64\"\"", .data(Data())),
            ]
        )
        func literals(source: String, value: Value) throws {
            let kinds = try kinds(source)
            try #require(kinds.count == 1)
            guard case .literal(let lexed) = kinds[0] else {
                Issue.record("\(source) lexed to \(kinds[0])")
                return
            }
            #expect(same(lexed, value), "\(source) lexed to \(lexed.kindName) \(lexed)")
        }

        @Test(
            "placeholders lex to specifiers, argument indices and variables",
            arguments: [
                ("%@", PredicateToken.Kind.formatSpecifier(.object)), ("%K", .formatSpecifier(.keyPath)),
                ("%d", .formatSpecifier(.integer)), ("%i", .formatSpecifier(.integer)), ("%u", .formatSpecifier(.integer)),
                ("%ld", .formatSpecifier(.integer)), ("%lld", .formatSpecifier(.integer)),
                ("%lu", .formatSpecifier(.integer)), ("%qd", .formatSpecifier(.integer)),
                ("%f", .formatSpecifier(.floatingPoint)), ("%lf", .formatSpecifier(.floatingPoint)),
                ("$0", .positionalArgument(0)), ("$12", .positionalArgument(12)),
                ("$dog", .variable("dog")), ("$_x1", .variable("_x1")),
            ]
        )
        func placeholders(source: String, kind: PredicateToken.Kind) throws {
            #expect(try kinds(source) == [kind])
        }

        @Test(
            "collection operators keep their @ and are lowercased",
            arguments: [("@count", "@count"), ("@SIZE", "@size"), ("@Max", "@max"), ("@links", "@links"), ("@keys", "@keys")]
        )
        func collectionOperators(source: String, name: String) throws {
            #expect(try kinds(source) == [.collectionOperator(name)])
        }

        @Test(
            "[c], [d] and [cd] are options; other brackets open a subscript",
            arguments: [
                ("[c]", [PredicateToken.Kind.options(.caseInsensitive)]),
                ("[C]", [.options(.caseInsensitive)]),
                ("[d]", [.options(.diacriticInsensitive)]),
                ("[cd]", [.options([.caseInsensitive, .diacriticInsensitive])]),
                ("[dc]", [.options([.caseInsensitive, .diacriticInsensitive])]),
                ("[]", [.leftBracket, .rightBracket]),
                ("['c']", [.leftBracket, .literal(.string("c")), .rightBracket]),
                ("[cx]", [.leftBracket, .identifier("cx"), .rightBracket]),
                ("[c", [.leftBracket, .identifier("c")]),
            ]
        )
        func options(source: String, expected: [PredicateToken.Kind]) throws {
            #expect(try kinds(source) == expected)
        }

        @Test("token ranges count Unicode scalars from 0 and the end token sits at the end")
        func ranges() throws {
            let tokens = try PredicateLexer.tokenize("café >= 'é'  AND x")
            #expect(tokens.map(\.range) == [0..<4, 5..<7, 8..<11, 13..<16, 17..<18, 18..<18])
            #expect(tokens.map(\.text) == ["café", ">=", "'é'", "AND", "x", ""])
        }

        @Test("whitespace of every kind separates tokens")
        func whitespace() throws {
            #expect(try kinds(" \t\na\r\n==\u{00A0}1 ") == [.identifier("a"), .comparison(.equal), .literal(.int(1))])
            #expect(try kinds("") == [])
            #expect(try kinds("   ") == [])
        }

        @Test(
            "malformed input is reported with its reason, position and token",
            arguments: [
                ("age & 3", "invalid character '&' (did you mean '&&'?)", 4, "&"),
                ("a | b", "invalid character '|' (did you mean '||'?)", 2, "|"),
                ("age ~ 3", "invalid character '~'", 4, "~"),
                ("a - b", "invalid character '-'", 2, "-"),
                ("name == 'abc", "unterminated string", 8, "'abc"),
                ("\"a", "unterminated string", 0, "\"a"),
                (#"'a\qb'"#, "invalid escape sequence '\\q' in string", 2, "\\q"),
                (#"'\u12'"#, "invalid escape sequence: '\\u' needs four hex digits", 1, "\\u"),
                (#"'\uD83D'"#, "invalid escape sequence: unpaired surrogate", 1, "\\uD83D"),
                ("a # b", "expected a property name after '#'", 2, "#"),
                ("a == $", "expected an argument index or a variable name after '$'", 5, "$"),
                ("a.@ == 1", "expected a name after '@'", 2, "@"),
                ("a == %s", "unsupported format specifier '%s' (expected %@, %K, %d, %i, %u or %f)", 5, "%s"),
                ("a == %llf", "unsupported format specifier '%llf' (expected %@, %K, %d, %i, %u or %f)", 5, "%llf"),
                ("a == 3abc", "invalid number '3abc'", 5, "3abc"),
                ("a == 0x1G", "invalid number '0x1G'", 5, "0x1G"),
                ("a == 1.5fx", "invalid number '1.5fx'", 5, "1.5fx"),
                ("a == 9223372036854775808", "integer literal out of range", 5, "9223372036854775808"),
                ("a == 0x8000000000000000", "integer literal out of range", 5, "0x8000000000000000"),
                ("u == uuid(123)", "invalid UUID literal", 5, "uuid(123)"),
                ("u == uuid(137DECC8", "unterminated uuid(…) literal", 5, "uuid(137DECC8"),
                ("o == oid(zz)", "invalid ObjectId literal (expected 24 hex digits)", 5, "oid(zz)"),
                ("d == B64\"!!\"", "invalid base64 data", 5, "B64\"!!\""),
                ("d == B64\"aGk", "unterminated B64\"…\" literal", 5, "B64\"aGk"),
                ("d == 2021-13-01@00:00:00", "invalid date: a field is out of range", 5, "2021-13-01@00:00:00"),
                ("d == 2021-02-29@00:00:00", "invalid date: a field is out of range", 5, "2021-02-29@00:00:00"),
                ("d == 2021-02-20@24:00:00", "invalid date: a field is out of range", 5, "2021-02-20@24:00:00"),
                ("d == 2021-02-20", "invalid date: expected YYYY-MM-DD@HH:MM:SS", 5, "2021-02-20"),
                ("d == 2021-02-20@1:2:3:", "invalid date: expected nanoseconds after ':'", 5, "2021-02-20@1:2:3:"),
                (
                    "d == T1:-5", "invalid date: nanoseconds must be below 1000000000 and have the sign of the seconds",
                    5, "T1:-5"
                ),
                (
                    "d == T1:1000000000",
                    "invalid date: nanoseconds must be below 1000000000 and have the sign of the seconds", 5,
                    "T1:1000000000"
                ),
            ]
        )
        func errors(source: String, reason: String, position: Int, token: String) throws {
            let error = try #require(lexError(source))
            #expect(error.reason == reason)
            #expect(error.position == position)
            #expect(error.token == token)
        }

        @Test("cached tokens are the lexer's; a format that fails is not kept; the cache stays bounded; arguments bind anew each time")
        func tokenCache() throws {
            let format = "name == '\(UUID().uuidString)' AND age BETWEEN {%d, %d}"
            let first = try PredicateLexer.cachedTokens(format)
            #expect(first == (try PredicateLexer.tokenize(format)))
            #expect((try PredicateLexer.cachedTokens(format)) == first)
            let bad = "name == 'unterminated \(UUID().uuidString)"
            let errors = (0..<2).map { _ -> PredicateFormatError? in
                do throws(PredicateFormatError) { _ = try PredicateLexer.cachedTokens(bad); return nil } catch { return error }
            }
            #expect(errors[0] != nil && errors[0] == errors[1])
            for i in 0..<(PredicateLexer.tokenCacheCapacity + 10) { _ = try PredicateLexer.cachedTokens("age == \(i) AND name != 'many \(i)'") }
            #expect(PredicateLexer.cachedFormatCount <= PredicateLexer.tokenCacheCapacity)
            // One format, two sets of arguments: each parse binds its own.
            let a = try PredicateFormat("age BETWEEN {%d, %d}", 1, 2), b = try PredicateFormat("age BETWEEN {%d, %d}", 7, 9)
            #expect(a.description == "age BETWEEN {1, 2}" && b.description == "age BETWEEN {7, 9}")
        }
    }
}
