/// One log record as the layers above the Log see it: a versioned, typed,
/// timestamped payload of opaque bytes (the encoded change record).
///
/// Framing, compression and checksums are in `LogRecord+Framing.swift`.
struct LogRecord: Equatable, Sendable {
    /// What the payload holds.
    var type: LogFormat.RecordType
    /// The database version this record produces; the previous record's plus 1.
    var version: UInt64
    /// Commit time in microseconds since the Unix epoch. Informational; may go backwards.
    var timestampMicros: UInt64
    /// The decoded payload.
    var payload: [UInt8]

    init(type: LogFormat.RecordType, version: UInt64, timestampMicros: UInt64, payload: [UInt8]) {
        self.type = type
        self.version = version
        self.timestampMicros = timestampMicros
        self.payload = payload
    }
}
