import Foundation
import Shoal

/// What a reading command (`stats`, `export`, `dump`) says about damage: the
/// database's first problem on standard error, and the status to exit with,
/// so that no command prints damaged data as if it were whole.
///
/// Returns `.healthy` (and says nothing) for a healthy database.
func warnAboutDamage(_ inspector: LogInspector, json: Bool) -> ExitStatus {
    let report = inspector.check()
    guard let problem = report.firstProblem else { return .healthy }
    let status = ExitStatus(report.status)
    let verdict = problem.isTail ? "has a torn tail" : "is DAMAGED before the tail"
    let message = "\(inspector.databaseName) \(verdict): \(problem); what is shown stops at version \(report.versions.last)"
        + (problem.isTail ? "" : " (see `shoal check` and `shoal repair --help`)")
    if json {
        printJSONLine(["warning": ["message": message, "status": Int(status.rawValue), "kind": problem.kind.rawValue,
            "file": problem.file, "version": Int(problem.version)] as [String: Any]])
    } else {
        printError("shoal: warning: \(message)")
    }
    return status
}

/// Writes one JSON object, keys sorted, as a line on standard error.
func printJSONLine(_ object: [String: Any]) {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    printError(String(decoding: data, as: UTF8.self))
}

/// The JSON form of an error: `{"error":{"message":…,"status":…}}`, with the
/// ShoalError code when there is one.
func printJSONError(_ message: String, status: Int32, code: ShoalError.Code? = nil) {
    var error: [String: Any] = ["message": message, "status": Int(status)]
    if let code {
        error["code"] = code.rawValue
        error["codeName"] = String(code.description.prefix { $0 != "(" })
    }
    printJSONLine(["error": error])
}
