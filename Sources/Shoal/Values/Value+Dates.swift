import Foundation

// Dates that Foundation cannot describe, and Realm's meaning for them.
//
// A `Date` is a `Double`: NaN, the infinities and intervals past what a
// 64-bit count of seconds holds are all representable, but `"\(date)"`
// traps on NaN and Realm stores none of them as such (`Timestamp` is 64-bit
// seconds plus nanoseconds; realm-cocoa's `RLMTimestampForNSDate` stores
// NaN as the epoch and clamps the rest). Shoal describes them without
// trapping and, like Realm, stores NaN as the epoch.

extension Value {
    /// The value Realm stores for this one: a NaN date becomes the epoch
    /// (1970-01-01 00:00:00 UTC); every other value is itself.
    var storable: Value {
        switch self {
        case .date(let date) where date.timeIntervalSinceReferenceDate.isNaN: return .date(Date(timeIntervalSince1970: 0))
        case .list(let elements): return .list(elements.map(\.storable))
        case .dictionary(let entries): return .dictionary(entries.mapValues(\.storable))
        default: return self
        }
    }

    /// A description of `date` that never traps: Foundation's, except for NaN.
    static func describe(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        return interval.isNaN ? "Date(timeIntervalSince1970: nan)" : "\(date)"
    }

    /// `date` as whole seconds and nanoseconds since 1970 with the sign of the
    /// interval, as Realm's `Timestamp` holds it: NaN is the epoch, and dates
    /// past the range of 64-bit seconds clamp to its ends (realm-cocoa's
    /// `RLMTimestampForNSDate`).
    static func timestamp(of date: Date) -> (seconds: Int64, nanoseconds: Int32) {
        let interval = date.timeIntervalSince1970
        if interval.isNaN { return (0, 0) }
        // 2^63 as a Double; every finite Double below it converts exactly.
        let limit = 9_223_372_036_854_775_808.0
        if interval >= limit { return (.max, 999_999_999) }
        if interval < -limit { return (.min, -999_999_999) }
        var seconds = interval.rounded(.towardZero)
        var nanoseconds = ((interval - seconds) * 1e9).rounded()
        if abs(nanoseconds) >= 1e9 {
            seconds += nanoseconds > 0 ? 1 : -1
            nanoseconds = 0
        }
        if seconds >= limit { return (.max, 999_999_999) }
        if seconds < -limit { return (.min, -999_999_999) }
        return (Int64(seconds), Int32(nanoseconds))
    }
}
