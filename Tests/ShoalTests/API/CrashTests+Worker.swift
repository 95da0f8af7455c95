import Foundation
import ShoalTestSupport
@testable import Shoal

/// Running the crash worker (`ShoalCrashWorker`) and killing it with SIGKILL.
extension CrashTests {
    /// When a round's kill delay starts.
    enum KillTrigger {
        /// At the first acknowledged commit.
        case firstAcknowledgement
        /// When the migration block has run: the migration's write follows.
        case migrating
        /// Just before the worker opens the database.
        case opening

        var line: String {
            switch self {
            case .firstAcknowledgement: ""
            case .migrating: CrashScenario.migratingLine
            case .opening: CrashScenario.openingLine
            }
        }
    }

    /// What the worker said before it was killed.
    struct WorkerOutput {
        /// Ids of the items whose transaction `write` returned from.
        var acknowledged: [Int] = []
        /// CLOCK_MONOTONIC nanoseconds of the worker's marker lines, by line.
        var marks: [String: UInt64] = [:]
        /// Standard error, when the worker ended by itself (it never should).
        var failure: String?

        /// Microseconds from one marker line to another, when the worker printed both.
        func micros(from start: String, to end: String) -> Double? {
            guard let a = marks[start], let b = marks[end], b > a else { return nil }
            return Double(b - a) / 1_000
        }
    }

    /// Runs the worker with `arguments` and kills it `delayMicros` after `trigger`.
    static func runWorker(_ arguments: [String], trigger: KillTrigger, delayMicros: UInt32) throws -> WorkerOutput {
        let process = Process()
        process.executableURL = workerURL
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var received = ""
        var endedBySelf = false
        func lines() -> [Substring] { received.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }
        func triggered() -> Bool {
            lines().contains { trigger == .firstAcknowledgement ? Int($0) != nil : $0.hasPrefix(trigger.line + " ") }
        }
        while !triggered() {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                endedBySelf = true
                break
            }
            received += String(decoding: chunk, as: UTF8.self)
        }
        if !endedBySelf { usleep(delayMicros) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        received += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var result = WorkerOutput()
        // Ended by itself before the trigger, or during the delay: only the kill may end it.
        if endedBySelf || process.terminationReason != .uncaughtSignal {
            result.failure = "exit \(process.terminationStatus): "
                + String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        for line in lines() {
            let words = line.split(separator: " ")
            if let id = Int(line) {
                result.acknowledged.append(id)
            } else if words.count == 2, let nanos = UInt64(words[1]) {
                result.marks[String(words[0])] = nanos
            }
        }
        return result
    }
}

/// The crash worker committing to a database (durable policy) for as long
/// as a test needs another process to hold it open.
final class RunningWorker {
    private let process = Process()
    private let output = Pipe()
    private var received = ""

    /// Starts the worker on `path` and returns once it has acknowledged a
    /// commit: from then on it holds the database open.
    init(path: String) throws {
        process.executableURL = CrashTests.workerURL
        process.arguments = [path, "durable"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        while !received.split(separator: "\n").contains(where: { Int($0) != nil }) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                process.waitUntilExit()
                throw ShoalError(.fileAccess, "the worker ended before its first commit (status \(process.terminationStatus))")
            }
            received += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// Kills the worker and returns the number of commits it acknowledged.
    func stop() -> Int {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        received += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return received.split(separator: "\n", omittingEmptySubsequences: false).dropLast().filter { Int($0) != nil }.count
    }

    deinit {
        if process.isRunning { _ = stop() }
    }
}
