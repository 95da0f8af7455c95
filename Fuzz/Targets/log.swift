// Fuzz target: a whole log segment file, read by replay and by the recovery
// scan, checksums recomputed after mutation.

import Foundation
@testable import Shoal

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        FuzzSeeds.databases().flatMap { db, files in
            files.filter { $0.name.hasSuffix(".wal") }.map { ("\(db)-\($0.name)", $0.bytes) }
        }
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    var bytes = fuzzInput(start, count)
    FuzzChecksums.fixLog(&bytes)
    guard let reader = try? LogReader(path: "log-0000000000000000.wal", contents: bytes) else { return 0 }
    var records = 0
    let result = reader.replay { _ in records += 1 }
    let (report, summary) = reader.scan()
    // The recovery scan classifies the first problem exactly as replay does.
    guard summary.ending == result.ending, summary.okUpTo == result.validEnd else {
        fatalError("scan and replay disagree: \(summary.ending) at \(summary.okUpTo), \(result.ending) at \(result.validEnd)")
    }
    guard report.records.count >= records else { fatalError("the scan found fewer records than replay") }
    _ = result.error(strict: false, isLastSegment: true)
    for damage in report.damage { _ = damage.description }
    return 0
}
