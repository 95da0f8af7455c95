internal import Glibc
import Foundation
import Shoal
import Synchronization

/// Ctrl-C (and SIGTERM) during a writing command: the handler only sets a
/// flag, which the recovery API polls at safe points; it then deletes what
/// it wrote, so every file stays as it was.
enum Interrupt {
    static let flag = Atomic<Bool>(false)

    static func install() {
        signal(SIGINT) { _ in Interrupt.flag.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in Interrupt.flag.store(true, ordering: .relaxed) }
    }

    static var requested: Bool { flag.load(ordering: .relaxed) }
}

/// Writes a message and a newline to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// A one-line progress bar on standard error, with bytes and records per
/// second; `nil` from `init` when standard error is not a terminal.
final class ProgressBar {
    private let label: String
    private let start = ContinuousClock.now
    private var lastDraw = ContinuousClock.now
    private var drawn = false

    init?(label: String) {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        self.label = label
    }

    func update(_ progress: RecoveryProgress) {
        let now = ContinuousClock.now
        guard now - lastDraw > .milliseconds(100) || progress.bytesDone == progress.bytesTotal else { return }
        lastDraw = now
        let fraction = progress.bytesTotal > 0 ? Double(progress.bytesDone) / Double(progress.bytesTotal) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let elapsed = max(Double((now - start).components.attoseconds) / 1e18 + Double((now - start).components.seconds), 0.001)
        let line = "\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + "\(Int(fraction * 100))%  \(Self.bytes(progress.bytesDone)) / \(Self.bytes(progress.bytesTotal))  "
            + "\(Self.bytes(Int64(Double(progress.bytesDone) / elapsed)))/s  \(Int(Double(progress.records) / elapsed)) records/s"
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    private static func bytes(_ count: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}
