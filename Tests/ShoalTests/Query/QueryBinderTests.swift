import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

extension QueryTests {
    @Suite struct QueryBinderTests {
        func error(_ format: String, _ args: Any...) -> ShoalError? {
            do {
                try PredicateFormat(format, argumentArray: args).validate(for: Dog.self)
                return nil
            } catch { return error as? ShoalError }
        }

        @Test("an unknown property names the class, the property and its position")
        func unknownProperty() throws {
            let e = try #require(error("age > 3 AND owner.nmae == 'Ann'"))
            #expect(e.code == .invalidKeyPath)
            #expect(e.message.contains("unknown property 'nmae' on class 'Person' at position 18"))
            let f = try #require(error("colour == 'red'"))
            #expect(f.message.contains("unknown property 'colour' on class 'Dog' at position 0"))
        }

        @Test("a type mismatch names both types")
        func typeMismatch() throws {
            let e = try #require(error("age == 'x'"))
            #expect(e.code == .invalidQuery)
            #expect(e.message.contains("'age' of type 'int'") && e.message.contains("of type 'string'"))
            #expect(error("name > 3")?.message.contains("of type 'string'") == true)
            #expect(error("owner == 3")?.message.contains("of type 'Person'") == true)
            #expect(error("age IN {1, 'a'}") != nil)
        }

        @Test("operators that do not apply, modifiers without collections, and bad paths are errors")
        func otherErrors() throws {
            #expect(error("age BEGINSWITH 'a'")?.message.contains("needs string values") == true)
            #expect(error("owner > nil")?.message.contains("cannot order") == true)
            #expect(error("ANY age == 3")?.message.contains("needs a key path through a collection") == true)
            #expect(error("age.value == 3")?.code == .invalidKeyPath)
            #expect(error("@links.Person.name.@count > 0")?.message.contains("does not link to class 'Dog'") == true)
            #expect(error("@links.Cat.dogs.@count > 0")?.message.contains("unknown class 'Cat'") == true)
            #expect(error("name.@count > 0")?.message.contains("Property 'Dog.name' is not a link or collection") == true)
            #expect(error("owner.@count > 0")?.message.contains("needs a collection") == true)
            #expect(error("tags.@sum > 0")?.message.contains("not supported") == true)
            #expect(error("3 == 3")?.message.contains("two constants") == true)
            #expect(error("'a' BEGINSWITH name") != nil)
            #expect(error("scores['a'].x == 1")?.code == .invalidKeyPath)
            #expect(error("age > 3 AND name == 'Rex' AND owner.dogs.age > 2 AND SUBQUERY(owners, $p, $p.city == 'x').@count > 0") == nil)
        }

        @Test("a #Predicate translates to the same tree as the format string, or names what it cannot translate")
        func foundationPredicate() throws {
            let p = try PredicateFormat(#Predicate<Dog> { $0.age > 3 && $0.name.starts(with: "R") })
            #expect(p.tree == (try PredicateFormat("age > 3 AND name BEGINSWITH 'R'").tree))
            let q = try PredicateFormat(#Predicate<Dog> { $0.owner?.name == "Ann" || !($0.age == 2) })
            #expect(q.description == #"owner.name == "Ann" OR NOT age == 2"#)
            let r = try PredicateFormat(#Predicate<Dog> { (1...3).contains($0.age) && $0.tags.contains("good") && $0.owners.count > 1 })
            #expect(r.description == #"age BETWEEN {1, 3} AND "good" IN tags AND owners.@count > 1"#)
            let s = try PredicateFormat(#Predicate<Person> { $0.dogs.contains { $0.age > 2 } })
            #expect(s.description == "SUBQUERY(dogs, $v1, $v1.age > 2).@count > 0")
            do {
                _ = try PredicateFormat(#Predicate<Dog> { ($0.owner?.id ?? 0) > 1 })
                Issue.record("expected an error")
            } catch let error as ShoalError {
                #expect(error.code == .invalidQuery)
                #expect(error.message.contains("NilCoalesce"))
            }
        }
    }
}
