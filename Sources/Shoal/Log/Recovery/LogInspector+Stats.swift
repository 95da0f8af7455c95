import Foundation

/// What ``LogInspector/stats(largest:)`` measured: where the bytes are, and
/// how much compaction would save.
///
/// ```swift
/// let stats = try LogInspector(path: "app.shoal").stats()
/// print("compaction would save \(stats.bytes.compactionSavings) bytes")
/// ```
public struct StatsReport: Codable, Sendable, Equatable {
    /// One class at the last valid version.
    public struct ClassStats: Codable, Sendable, Equatable {
        /// The class name.
        public let name: String
        /// Live objects.
        public let objects: Int
        /// Object keys ever used, deleted objects included.
        public let keysUsed: Int
    }

    /// Sizes in bytes.
    public struct Bytes: Codable, Sendable, Equatable {
        /// Log segments and snapshots.
        public let onDisk: Int64
        /// Log segments.
        public let log: Int64
        /// Snapshot files.
        public let snapshot: Int64
        /// The size of the database after compaction: a snapshot of the live
        /// data (LZ4-compressed as snapshots are) and an empty segment.
        public let liveData: Int64
        /// `onDisk - liveData`: what compaction would save (0 if it would not).
        public let compactionSavings: Int64
    }

    /// One transaction record.
    public struct TransactionStats: Codable, Sendable, Equatable {
        /// The version the transaction committed.
        public let version: UInt64
        /// Its commit time (UTC, ISO 8601 with microseconds).
        public let time: String
        /// On disk, header included.
        public let bytes: Int64
        /// The payload decoded.
        public let rawBytes: Int64
        /// How many operations it holds.
        public let ops: Int
    }

    /// The database directory's name.
    public let database: String
    /// The last valid version.
    public let version: UInt64
    /// The classes, in schema order, at the last valid version.
    public let classes: [ClassStats]
    /// Sizes, and what compaction would save.
    public let bytes: Bytes
    /// Valid records after the snapshot, and how many are transactions.
    public let records: Int
    /// How many of those records are transactions.
    public let transactions: Int
    /// The largest transactions on disk, largest first.
    public let largestTransactions: [TransactionStats]

    /// The report as pretty-printed JSON with sorted keys.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain value types cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    /// The report as text for a terminal.
    public var text: String {
        var lines = ["\(database): version \(version), \(RecoveryRendering.count(records, "record")) (\(RecoveryRendering.count(transactions, "transaction")))"]
        lines.append("  classes")
        for c in classes {
            lines.append("    \(c.name.padding(toLength: max(14, c.name.count), withPad: " ", startingAt: 0)) \(RecoveryRendering.count(c.objects, "object")) (\(RecoveryRendering.count(c.keysUsed, "key")) used)")
        }
        lines.append("  bytes on disk    \(bytes.onDisk) (log \(bytes.log), snapshot \(bytes.snapshot))")
        lines.append("  live data        \(bytes.liveData) after compaction; compaction would save \(bytes.compactionSavings)")
        if !largestTransactions.isEmpty {
            lines.append("  largest transactions")
            for t in largestTransactions {
                lines.append("    version \(t.version)  \(RecoveryRendering.count(t.bytes, "byte")) (\(t.rawBytes) raw)  \(RecoveryRendering.count(t.ops, "op"))  \(t.time)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// How ``LogInspector/export(className:at:format:to:)`` writes objects.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// A JSON array, one object per line.
    case json
    /// A header row of stored property names, then one row per object; collections as JSON text.
    case csv
}

extension LogInspector {
    /// Measures the database: objects per class, log versus snapshot bytes,
    /// live data versus what is on disk, and the largest transactions.
    ///
    /// ```swift
    /// let stats = try LogInspector(path: "app.shoal").stats(largest: 3)
    /// print(stats.text)
    /// ```
    /// - Parameter largest: how many of the largest transactions to list.
    public func stats(largest: Int = 5) -> StatsReport {
        var all: [StatsReport.TransactionStats] = []
        var records = 0
        let walk = RecoveryWalk.run(source, policy: .stopAtFirstProblem, visit: { step in
            records += 1
            guard let change = step.change else { return }
            all.append(.init(
                version: step.record.version, time: RecoveryRendering.timestamp(micros: step.record.timestampMicros),
                bytes: step.byteCount, rawBytes: Int64(step.record.payload.count), ops: change.ops.count))
        })
        let state = walk.state
        let log = source.files.filter { $0.kind == .log }.reduce(Int64(0)) { $0 + $1.byteCount }
        let snapshot = source.files.filter { $0.kind == .snapshot }.reduce(Int64(0)) { $0 + $1.byteCount }
        let live = Self.compactedSize(of: state)
        let largestFirst = all.sorted { ($0.bytes, $1.version) > ($1.bytes, $0.version) }
        return StatsReport(
            database: source.name, version: state.version,
            classes: state.schema.objectSchema.enumerated().map { i, os in
                .init(name: os.className, objects: state.tables[i].count, keysUsed: state.tables[i].alive.count)
            },
            bytes: .init(onDisk: log + snapshot, log: log, snapshot: snapshot, liveData: live,
                compactionSavings: max(0, log + snapshot - live)),
            records: records, transactions: all.count, largestTransactions: Array(largestFirst.prefix(largest)))
    }

    /// The bytes of a compacted database holding `state`: the snapshot file
    /// (header, LZ4 chunks, trailer) and an empty segment.
    static func compactedSize(of state: Snapshot) -> Int64 {
        let payload = SnapshotCodec.encode(state)
        var size = Int64(LogFormat.fileHeaderSize + SnapshotFile.trailerSize + LogFormat.fileHeaderSize)
        payload.withUnsafeBytes { bytes in
            var start = 0
            while start < bytes.count {
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + LogFormat.chunkRawBytes, bytes.count)])
                size += Int64(SnapshotFile.chunkHeaderSize + (Compression.compress(chunk)?.count ?? chunk.count))
                start += chunk.count
            }
        }
        return size
    }

    /// Writes the objects of one class, in object key order, at the last valid
    /// version or at `target`.
    ///
    /// ```swift
    /// try LogInspector(path: "app.shoal").export(className: "Dog", format: .csv) { print($0) }
    /// // id,name,age,…
    /// // 0,dog 0,0,…
    /// ```
    /// - Throws: ``ShoalError`` `unknownObjectType` when the class does not
    ///   exist at that version; `missingVersions` when the version is not in the database.
    public func export(className: String, at target: PointInTime? = nil, format: ExportFormat, to sink: (String) -> Void) throws {
        let state = try state(at: target.map { target -> RecoveryWalk.Limit in
            switch target {
            case .version(let v): .version(v)
            case .time(let t): .time(t)
            }
        })
        guard let table = state.schema.tableByName[className] else {
            throw ShoalError(
                .unknownObjectType,
                "\(source.path) has no class '\(className)' at version \(state.version); its classes are "
                    + state.schema.objectSchema.map(\.className).joined(separator: ", "),
                context: ["path": source.path, "class": className])
        }
        let keys = state.tables[table.index].liveKeys
        switch format {
        case .json:
            sink("[")
            for (i, key) in keys.enumerated() {
                sink(JSON.object(RecoveryRendering.object(table, key, in: state)).rendered() + (i < keys.count - 1 ? "," : ""))
            }
            sink("]")
        case .csv:
            let properties = state.schema[table].properties.filter(\.isStored)
            sink(properties.map { Self.csvField($0.name) }.joined(separator: ","))
            for key in keys {
                let cells = RecoveryRendering.object(table, key, in: state).map { _, value -> String in
                    switch value {
                    case .null: ""
                    case .string(let s): Self.csvField(s)
                    case .object(let members) where members.first?.0 == "class":
                        Self.csvField(members.first { $0.0 == "primaryKey" }.map { $0.1.rendered() }
                            ?? "#" + (members.first { $0.0 == "key" }?.1.rendered() ?? ""))
                    default: Self.csvField(value.rendered())
                    }
                }
                sink(cells.joined(separator: ","))
            }
        }
    }

    private static func csvField(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }
}
