import CHeapInfo
import Foundation

/// Timing and statistics helpers for the side-by-side runner.
public enum Measure {
    /// Monotonic nanoseconds.
    @inline(__always)
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// CPU nanoseconds the whole process (every thread) has used.
    public static func cpuNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Nanoseconds taken by `body`, and its result.
    @inline(__always)
    public static func time<T>(_ body: () throws -> T) rethrows -> (ns: UInt64, value: T) {
        let start = now()
        let value = try body()
        return (now() - start, value)
    }

    /// The `q` quantile (0...1) of `values`, nearest rank.
    public static func quantile(_ values: [UInt64], _ q: Double) -> UInt64 {
        precondition(!values.isEmpty)
        let sorted = values.sorted()
        let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    public static func median(_ values: [UInt64]) -> UInt64 { quantile(values, 0.5) }

    /// Bytes the C heap has handed out and not taken back (glibc `mallinfo2`).
    public static func heapBytes() -> Int { Int(cheapinfo_heap_bytes()) }
}
