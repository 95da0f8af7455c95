// Fuzz target: a schema record's payload (schema, schema version, fingerprint).

import Foundation
@testable import Shoal

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        var seeds: [(String, [UInt8])] = []
        FuzzSeeds.logRecords { db, name, record in
            if record.type == .schemaChange { seeds.append(("\(db)-\(name)-\(record.version)", record.payload)) }
        }
        return seeds
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    _ = try? SchemaCodec.decode(input)
    guard let (schema, schemaVersion) = try? SchemaRecord.decode(input) else { return 0 }
    // A schema that decodes is valid, re-encodes to a record that decodes to it, and can hold a state.
    guard (try? schema.validate()) != nil else { fatalError("a decoded schema does not validate") }
    guard let (again, version) = try? SchemaRecord.decode(SchemaRecord.encode(schema, schemaVersion: schemaVersion)),
        again == schema, version == schemaVersion
    else { fatalError("a decoded schema does not survive re-encoding") }
    let state = Snapshot(schema: Schema([])).applyingSchema(schema)
    if let violation = state.invariantViolation() { fatalError("an empty state of a stored schema breaks an invariant: \(violation)") }
    return 0
}
