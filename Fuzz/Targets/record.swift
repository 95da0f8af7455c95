// Fuzz target: a transaction record's payload, decoded against a schema and
// applied to an empty state, as replay and recovery do.
// Input: schemaLength:u32le schema(SchemaCodec) payload(ChangeRecordCodec).

import Foundation
@testable import Shoal

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        var seeds: [(String, [UInt8])] = []
        var schema = Schema([])
        var index = 0
        var file = ""
        FuzzSeeds.logRecords { db, name, record in
            if "\(db)/\(name)" != file { (schema, index, file) = (Schema([]), 0, "\(db)/\(name)") }
            if record.type == .schemaChange, let (decoded, _) = try? SchemaRecord.decode(record.payload) { schema = decoded }
            guard record.type == .transaction else { return }
            let encoded = SchemaCodec.encode(schema)
            var input: [UInt8] = []
            input.appendLittleEndian(UInt32(encoded.count))
            seeds.append(("\(db)-\(name)-\(index)", input + encoded + record.payload))
            index += 1
        }
        return seeds
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    guard input.count >= 4 else { return 0 }
    let schemaLength = Int(input.loadLittleEndian(UInt32.self, at: 0))
    guard schemaLength <= input.count - 4 else { return 0 }
    guard let schema = try? SchemaCodec.decode(Array(input[4..<(4 + schemaLength)])) else { return 0 }
    let payload = Array(input[(4 + schemaLength)...])
    guard let change = try? ChangeRecordCodec.decode(payload, baseVersion: 0, schema: schema) else { return 0 }
    var batch = BatchApplier(Snapshot(schema: schema))
    for op in change.ops where batch.apply(op) != nil { return 0 }
    guard batch.finish() == nil else { return 0 }
    let state = batch.snapshot
    if let violation = state.invariantViolation() { fatalError("a record that applies breaks an invariant: \(violation)") }
    // What is applied re-encodes, and decodes to the same ops.
    let again = ChangeRecordCodec.encode(change)
    guard let decoded = try? ChangeRecordCodec.decode(again, baseVersion: 0, schema: schema), decoded.ops == change.ops else {
        fatalError("a decoded record does not survive re-encoding")
    }
    return 0
}
