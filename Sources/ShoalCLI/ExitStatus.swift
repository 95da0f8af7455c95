import ArgumentParser
import Shoal

/// The tool's exit codes; argument errors keep swift-argument-parser's own (64).
enum ExitStatus: Int32 {
    case healthy = 0
    case tornTail = 1
    case damaged = 2
    case unreadable = 3

    init(_ status: CheckReport.Status) {
        switch status {
        case .healthy: self = .healthy
        case .tornTail: self = .tornTail
        case .damaged: self = .damaged
        }
    }

    var exitCode: ExitCode { ExitCode(rawValue) }

    /// The exit status for an error the recovery API threw.
    static func forError(_ error: ShoalError) -> ExitCode {
        switch error.code {
        case .unknownObjectType, .missingVersions, .invalidValue: .validationFailure
        case .corruptRecord, .corruptLog, .corruptHeader, .corruptSnapshot, .nonMonotonicVersion,
            .requiresNewerShoal, .tornTail:
            ExitStatus.damaged.exitCode
        default: ExitStatus.unreadable.exitCode
        }
    }
}

/// Runs a command body, turning library errors into a message on standard
/// error (a JSON object with `json`) and an exit status, never a stack trace.
func runReporting(allowsForce: Bool = false, json: Bool = false, _ body: () throws -> ExitStatus) throws {
    let status: ExitStatus
    do {
        status = try body()
    } catch let error as ShoalError {
        var message = error.message
        if error.code == .alreadyOpen && allowsForce {
            message += ". Pass --force to read it anyway (read-only; a record being written may show as a torn tail)."
        }
        let exit = ExitStatus.forError(error)
        if json {
            printJSONError(message, status: exit.rawValue, code: error.code)
        } else {
            printError("shoal: error: \(message)")
        }
        throw exit
    } catch is CancellationError {
        if json {
            printJSONError("interrupted; nothing was changed", status: 130)
        } else {
            printError("shoal: interrupted; nothing was changed")
        }
        throw ExitCode(130)
    }
    if status != .healthy { throw status.exitCode }
}
