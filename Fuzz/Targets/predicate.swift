// Fuzz target: a predicate format string, parsed, bound against every class
// of the test model, and, when it validates, run on a small database (through
// the query plan, the evaluator and `index(matching:)`). Input: UTF-8 text.
// Dictionary: Fuzz/predicate.dict.

import Foundation
import ShoalTestSupport
@testable import Shoal

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        // Every string literal of the query tests that parses as a predicate.
        let directory = FuzzSeeds.tests.appendingPathComponent("ShoalTests/Query")
        var seen: Set<String> = []
        var seeds: [(String, [UInt8])] = []
        for file in ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted() {
            guard let text = try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8) else { continue }
            for literal in stringLiterals(in: text) where seen.insert(literal).inserted {
                guard (try? PredicateFormat(literal)) != nil else { continue }
                seeds.append(("\(file)-\(seeds.count)", Array(literal.utf8)))
            }
        }
        return seeds
    }
    return 0
}

/// The contents of the one-line `"…"` literals in Swift source, with `\"` and `\\` unescaped.
private func stringLiterals(in source: String) -> [String] {
    var out: [String] = []
    for line in source.split(separator: "\n") {
        var current: String?
        var escaped = false
        for c in line {
            if var text = current {
                if escaped {
                    text.append(c == "n" ? "\n" : c)
                    escaped = false
                    current = text
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    if !text.isEmpty { out.append(text) }
                    current = nil
                } else {
                    text.append(c)
                    current = text
                }
            } else if c == "\"" {
                current = ""
            }
        }
    }
    return out
}

private let realm: Realm = {
    let realm = try! makeRealm("fuzz")
    try! realm.write {
        let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann", "city": "Oslo"])
        for i in 1...6 {
            let dog = realm.create(Dog.self, value: ["id": i, "name": "dog \(i)", "age": i * 2, "breed": "b\(i % 3)",
                "tags": i % 2 == 0 ? ["a", "b"] : [], "scores": ["x": Double(i)]])
            if i % 2 == 1 { dog.owner = ann; ann.dogs.append(dog) }
        }
        realm.create(Kennel.self, value: ["name": "North", "residents": [realm.object(ofType: Dog.self, forPrimaryKey: 1)!]])
        realm.create(AllTypes.self, value: ["date": Date(timeIntervalSince1970: 0), "string": "s", "int": 3, "double": 1.5])
    }
    return realm
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let text = String(decoding: fuzzInput(start, count), as: UTF8.self)
    guard let format = try? PredicateFormat(text) else { return 0 }
    // What parses describes itself as text that parses again.
    guard (try? PredicateFormat(format.description)) != nil else {
        fatalError("the description of a parsed predicate does not parse: \(format.description)")
    }
    run(format, text, Person.self)
    run(format, text, Dog.self)
    run(format, text, Kennel.self)
    run(format, text, AllTypes.self)
    return 0
}

/// Binds `format` for `T`, and when that succeeds, counts and finds its
/// matches; `text` filtered as a format string twice (the second time
/// prepared, from the first's binding) finds the same objects.
private func run<T: Object>(_ format: PredicateFormat, _ text: String, _ type: T.Type) {
    guard (try? format.validate(for: type)) != nil else { return }
    let results = realm.objects(type).filter(format)
    _ = results.count
    _ = realm.objects(type).index(matching: format)
    _ = results.first?.description
    let keys = results.map { $0.ref!.key }
    for _ in 0..<2 where realm.objects(type).filter(text).map({ $0.ref!.key }) != keys {
        fatalError("filtering with the format string \(text) finds other objects than its parsed predicate")
    }
}
