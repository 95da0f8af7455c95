/// Something the port leaves to a person: a place in a ported file and what
/// to do there by hand.
public struct PortNote: Sendable, Equatable, CustomStringConvertible {
    /// The file, as the caller named it.
    public let path: String
    /// The line in the ported text (the file as it is after `--write`).
    public let line: Int
    /// What to do there.
    public let message: String

    /// Makes a note.
    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `path:line: note: message`, the form compilers use, so editors can jump to it.
    public var description: String { "\(path):\(line): note: \(message)" }
}

/// A source file the port cannot read.
public struct PortError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, as the caller named it.
    public let path: String
    /// What was wrong, with the line where the parser stopped when there is one.
    public let message: String

    /// Makes an error.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}
