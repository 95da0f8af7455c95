// Fuzz target: a whole database directory, opened through `Realm(configuration:)`
// and inspected with `LogInspector` (check, dump as JSON and text), checksums
// recomputed after mutation. Input: the directory's files (FuzzContainer).

import Foundation
import ShoalTestSupport
@testable import Shoal

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked { FuzzSeeds.databases().map { ($0.name, FuzzContainer.pack($0.files)) } }
    return 0
}

private let root = NSTemporaryDirectory() + "shoal-fuzz-\(getpid())"
nonisolated(unsafe) private var run = 0
private let types: [Object.Type] = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    run += 1
    let path = root + "/db-\(run).shoal"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    var seen: Set<String> = []
    for (name, bytes) in FuzzContainer.unpack(input).prefix(8) {
        // Only the names a database holds, each once: no path may leave the directory.
        guard name.hasSuffix(".wal") || name.hasSuffix(".snap"), !name.contains("/"), name.first != ".",
            seen.insert(name).inserted
        else { continue }
        var bytes = bytes
        if name.hasSuffix(".wal") { FuzzChecksums.fixLog(&bytes) } else { FuzzChecksums.fixSnapshot(&bytes) }
        _ = FileManager.default.createFile(atPath: path + "/" + name, contents: Data(bytes))
    }
    if let inspector = try? LogInspector(path: path, ignoringLock: true) {
        let report = inspector.check()
        _ = report.text
        _ = report.json()
        try? inspector.dump(format: .json) { _ in }
        try? inspector.dump(format: .text) { _ in }
    }
    var config = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
    config.objectTypes = types
    config.durability = .none
    if let realm = try? Realm(configuration: config) {
        describe(Person.self, in: realm)
        describe(Dog.self, in: realm)
        describe(Kennel.self, in: realm)
        describe(Puppy.self, in: realm)
        describe(AllTypes.self, in: realm)
        describe(Note.self, in: realm)
    }
    return 0
}

/// Prints the first objects of a class as `print(object)` would.
private func describe<T: Object>(_ type: T.Type, in realm: Realm) {
    for object in realm.objects(type).prefix(64) { _ = object.description }
}
