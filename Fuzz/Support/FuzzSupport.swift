// Shared by every fuzz target (compiled into each; see Fuzz/run.sh).
//
// A mutated file seldom gets past Shoal's checksums, which would leave the
// decoders behind them unexercised; so the harness recomputes every checksum
// after libFuzzer mutates an input, as a buggy writer, a hostile file or a
// future format change would produce them.

import Foundation
@testable import Shoal

enum FuzzChecksums {
    /// Recomputes the header checksum and every record checksum of a log
    /// segment, walking records by their stated lengths until one does not fit.
    static func fixLog(_ bytes: inout [UInt8]) {
        guard fixHeader(&bytes) else { return }
        let salt = bytes.loadLittleEndian(UInt64.self, at: LogFormat.FileHeaderLayout.salt)
        typealias L = LogFormat.RecordHeaderLayout
        var offset = LogFormat.fileHeaderSize
        while bytes.count - offset >= LogFormat.recordHeaderSize {
            let payloadLength = Int(bytes.loadLittleEndian(UInt32.self, at: offset + L.payloadLength))
            guard payloadLength <= bytes.count - offset - LogFormat.recordHeaderSize else { return }
            let end = offset + LogFormat.recordHeaderSize + payloadLength
            bytes.storeLittleEndian(
                Checksum.xxh3(bytes, range: (offset + L.checksummedFrom)..<end, seed: salt), at: offset + L.checksum)
            offset = end
        }
    }

    /// Recomputes the header, chunk and trailer checksums of a snapshot file,
    /// and the trailer's chunk count.
    static func fixSnapshot(_ bytes: inout [UInt8]) {
        guard fixHeader(&bytes) else { return }
        let salt = bytes.loadLittleEndian(UInt64.self, at: LogFormat.FileHeaderLayout.salt)
        let chunkHeaderSize = 16
        let trailerSize = 24
        var offset = LogFormat.fileHeaderSize
        var trailer = Checksum.Hasher(seed: salt)
        var count: UInt64 = 0
        while bytes.count - offset > trailerSize {
            let storedLength = Int(bytes.loadLittleEndian(UInt32.self, at: offset + 4))
            guard storedLength <= bytes.count - offset - chunkHeaderSize else { return }
            let body = (offset + chunkHeaderSize)..<(offset + chunkHeaderSize + storedLength)
            var hasher = Checksum.Hasher(seed: salt)
            bytes.withUnsafeBytes { all in
                hasher.update(UnsafeRawBufferPointer(rebasing: all[offset..<(offset + 8)]))
                hasher.update(UnsafeRawBufferPointer(rebasing: all[body]))
            }
            let checksum = hasher.finalize()
            bytes.storeLittleEndian(checksum, at: offset + 8)
            withUnsafeBytes(of: checksum.littleEndian) { trailer.update($0) }
            count += 1
            offset = body.upperBound
        }
        guard bytes.count - offset == trailerSize else { return }
        bytes.storeLittleEndian(count, at: offset)
        bytes.storeLittleEndian(trailer.finalize(), at: offset + 8)
    }

    /// Recomputes a file header's checksum; `false` if the file is shorter than a header.
    @discardableResult
    static func fixHeader(_ bytes: inout [UInt8]) -> Bool {
        typealias L = LogFormat.FileHeaderLayout
        guard bytes.count >= LogFormat.fileHeaderSize else { return false }
        bytes.storeLittleEndian(Checksum.xxh3(bytes, range: 0..<L.checksum, seed: 0), at: L.checksum)
        return true
    }
}

/// The files of a database directory packed into one input:
/// `(nameLength:u8 name contentLength:u32le content)*`.
enum FuzzContainer {
    static func pack(_ files: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, bytes) in files {
            let utf8 = Array(name.utf8.prefix(255))
            out.append(UInt8(utf8.count))
            out += utf8
            out.appendLittleEndian(UInt32(bytes.count))
            out += bytes
        }
        return out
    }

    static func unpack(_ input: [UInt8]) -> [(name: String, bytes: [UInt8])] {
        var files: [(String, [UInt8])] = []
        var offset = 0
        while offset < input.count {
            let nameLength = Int(input[offset])
            offset += 1
            guard input.count - offset >= nameLength + 4 else { break }
            let name = String(decoding: input[offset..<(offset + nameLength)], as: UTF8.self)
            offset += nameLength
            let length = min(Int(input.loadLittleEndian(UInt32.self, at: offset)), input.count - offset - 4)
            offset += 4
            files.append((name, Array(input[offset..<(offset + length)])))
            offset += length
        }
        return files
    }
}

/// Seed corpora: when `SHOAL_FUZZ_SEEDS` names a directory, a target writes
/// its seeds there (from `SHOAL_FUZZ_FIXTURES` and `SHOAL_FUZZ_TESTS`) and exits.
enum FuzzSeeds {
    static var fixtures: URL { URL(fileURLWithPath: ProcessInfo.processInfo.environment["SHOAL_FUZZ_FIXTURES"] ?? "Fixtures") }
    static var tests: URL { URL(fileURLWithPath: ProcessInfo.processInfo.environment["SHOAL_FUZZ_TESTS"] ?? "Tests") }

    /// Every database directory (`*.shoal`) under the fixtures, with its files.
    /// Every record of the fixtures' logs, in order within each log file.
    static func logRecords(_ body: (_ database: String, _ file: String, _ record: LogRecord) -> Void) {
        for (db, files) in databases() {
            for (name, bytes) in files where name.hasSuffix(".wal") {
                guard let reader = try? LogReader(path: name, contents: bytes) else { continue }
                _ = reader.replay { body(db, name, $0) }
            }
        }
    }

    static func databases() -> [(name: String, files: [(name: String, bytes: [UInt8])])] {
        let manager = FileManager.default
        guard let versions = try? manager.contentsOfDirectory(atPath: fixtures.path) else { return [] }
        var out: [(String, [(String, [UInt8])])] = []
        for version in versions.sorted() {
            let versionURL = fixtures.appendingPathComponent(version)
            for db in ((try? manager.contentsOfDirectory(atPath: versionURL.path)) ?? []).sorted() where db.hasSuffix(".shoal") {
                let dbURL = versionURL.appendingPathComponent(db)
                let files = ((try? manager.contentsOfDirectory(atPath: dbURL.path)) ?? []).sorted().compactMap { name -> (String, [UInt8])? in
                    guard let data = manager.contents(atPath: dbURL.appendingPathComponent(name).path) else { return nil }
                    return (name, [UInt8](data))
                }
                out.append(("\(version)-\(db)", files))
            }
        }
        return out
    }

    /// Writes the seeds `make` returns and exits, if asked to.
    static func writeIfAsked(_ make: () -> [(name: String, bytes: [UInt8])]) {
        guard let directory = ProcessInfo.processInfo.environment["SHOAL_FUZZ_SEEDS"] else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let seeds = make()
        for (name, bytes) in seeds {
            let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
            _ = FileManager.default.createFile(atPath: directory + "/" + safe, contents: Data(bytes))
        }
        print("wrote \(seeds.count) seeds to \(directory)")
        exit(0)
    }
}

/// The entry point libFuzzer calls, as a Swift function of the input's bytes.
func fuzzInput(_ start: UnsafeRawPointer?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return [UInt8](UnsafeRawBufferPointer(start: start, count: count))
}
