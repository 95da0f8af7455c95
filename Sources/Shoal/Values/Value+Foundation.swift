import Foundation

/// Foundation's reference types (`NSNumber`, `NSDate`, `NSString`, `NSData`,
/// `NSUUID`, `NSNull`) as values: Realm accepts them wherever it accepts the
/// Swift types they bridge to.
extension Value {
    /// What a Foundation number holds: a Boolean (only for Foundation's two
    /// Boolean numbers), a decimal for an `NSDecimalNumber`, a double or
    /// float for a floating-point number, an integer otherwise (a `UInt64`
    /// beyond `Int64.max` as a double).
    static func bridging(_ number: NSNumber) -> Value {
        if number === NSNumber(value: true) { return .bool(true) }
        if number === NSNumber(value: false) { return .bool(false) }
        if let decimal = number as? NSDecimalNumber { return .decimal(Decimal128(decimal.decimalValue)) }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "f"): return .float(number.floatValue)
        case UInt8(ascii: "d"): return .double(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"):
            let unsigned = number.uint64Value
            return unsigned <= UInt64(Int64.max) ? .int(Int64(unsigned)) : .double(number.doubleValue)
        default: return .int(number.int64Value)
        }
    }

    /// The value of a Foundation object that bridges to a stored type, or
    /// `nil` for any other value (Swift values included: they are not
    /// looked at here).
    static func bridging(_ any: Any) -> Value? {
        guard type(of: any) is NSObject.Type else { return nil }
        // Casting the `Any` bridges each to its Swift type.
        switch any {
        case let number as NSNumber: return bridging(number)
        case is NSNull: return .null
        case is NSDate: return (any as? Date).map(Value.date)
        case is NSString: return (any as? String).map(Value.string)
        case is NSData: return (any as? Data).map(Value.data)
        case is NSUUID: return (any as? UUID).map(Value.uuid)
        default: return nil
        }
    }

    /// A number as a Foundation number (`NSDecimalNumber` for a decimal);
    /// `nil` for anything else.
    var foundationNumber: NSNumber? {
        switch self {
        case .bool(let b): NSNumber(value: b)
        case .int(let i): NSNumber(value: i)
        case .float(let f): NSNumber(value: f)
        case .double(let d): NSNumber(value: d)
        case .decimal(let d): NSDecimalNumber(decimal: d.value)
        default: nil
        }
    }
}
