// Fuzz target: a snapshot payload, decoded in the form of its format version.
// Input: v:u8 payload (the decoded chunks of a snapshot file), read as format
// version v % 5 + 1; a columnar payload is also read as chunks of
// 1 + (v / 5) * 5 bytes come in.

import Foundation
@testable import Shoal

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        // The fixtures' snapshot files, and the state of every fixture database encoded as a snapshot.
        var seeds: [(String, [UInt8])] = FuzzSeeds.databases().flatMap { db, files in
            files.filter { $0.name.hasSuffix(".snap") }.compactMap { file -> (String, [UInt8])? in
                guard let snapshot = try? SnapshotFile.decode(path: file.name, contents: file.bytes) else { return nil }
                return ("\(db)-\(file.name)", [UInt8(truncatingIfNeeded: snapshot.header.formatVersion - 1)] + snapshot.payload)
            }
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: FuzzSeeds.fixtures.path)) ?? []
        for version in versions.sorted() {
            let directory = FuzzSeeds.fixtures.appendingPathComponent(version).path
            for db in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() where db.hasSuffix(".shoal") {
                guard let source = try? RecoverySource.load(path: directory + "/" + db, ignoringLock: true) else { continue }
                let state = RecoveryWalk.run(source, policy: .skipBadRecords).state
                seeds.append(("\(version)-\(db)-state", [UInt8(LogFormat.version - 1)] + SnapshotCodec.encode(state)))
            }
        }
        return seeds
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    guard let version = input.first else { return 0 }
    let formatVersion = UInt16(version % 5) + 1
    let payload = Array(input.dropFirst())
    // Decoded here and, for the columnar form, ahead on another thread: the
    // outcome is the same. One at a time, so that the harness holds one
    // snapshot's memory, as opening a database does.
    let loaded: Bool = {
        guard let snapshot = try? SnapshotCodec.decode(payload, formatVersion: formatVersion, decodeAheadFrom: .max) else { return false }
        if let violation = snapshot.invariantViolation() { fatalError("a snapshot that loads breaks an invariant: \(violation)") }
        return true
    }()
    if formatVersion >= 2 {
        let ahead = (try? SnapshotCodec.decode(payload, formatVersion: formatVersion, decodeAheadFrom: 0)) != nil
        guard loaded == ahead else { fatalError("decoding ahead changes the outcome") }
        // Read as its chunks come in (as a large snapshot file loads), in
        // chunks of 1 to 256 bytes that the version byte's high bits pick.
        let chunkSize = 1 + Int(version / 5) * 5
        let chunks = stride(from: 0, to: payload.count, by: chunkSize).map { start in
            let range = start..<min(start + chunkSize, payload.count)
            return ChunkDecoding.Chunk(stored: range, raw: range)
        }
        let progress = ProgressivePayload(input: payload, chunks: chunks) { _, _ in true }
        let progressive = (try? SnapshotCodec.decode(progress, formatVersion: formatVersion, decodeAheadFrom: 0)) != nil
        guard loaded == progressive else { fatalError("decoding as the chunks come in changes the outcome") }
    }
    return 0
}
