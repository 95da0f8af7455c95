public import Foundation

/// A decimal number, standing in for Realm's IEEE 754 `Decimal128`.
///
/// - Note: Differs from Realm: backed by Foundation's `Decimal` (38 significant
///   digits), not by the 128-bit IEEE decimal format; values Realm can store
///   beyond that precision are rounded.
///
/// ```swift
/// let price: Decimal128 = 19.99
/// let total = price * 3
/// ```
public struct Decimal128: Hashable, Comparable, Sendable, CustomStringConvertible, Codable,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    /// The Foundation decimal holding the value.
    public var value: Decimal

    /// Creates a decimal from a Foundation `Decimal`.
    public init(_ value: Decimal) { self.value = value }
    /// Creates a decimal from an integer.
    public init(_ value: Int) { self.value = Decimal(value) }
    /// Creates a decimal from a double, through its shortest decimal description;
    /// an infinity or NaN, which `Decimal` cannot hold, becomes NaN.
    public init(_ value: Double) {
        guard value.isFinite else {
            self.value = .nan
            return
        }
        self.value = Decimal(string: "\(value)") ?? Decimal(value)
    }
    /// Creates a zero decimal.
    public init() { self.value = 0 }
    /// Parses a decimal number such as `"12.50"`; a string that is not a
    /// number gives NaN (``isNaN``). Declared `throws`, as Realm's is, but
    /// never throws: Realm's never does either.
    public init(string: String) throws { self.value = Self.parse(string) ?? .nan }
    /// Converts a number: the exact value of a decimal number, otherwise the
    /// integer, floating-point or Boolean value it holds.
    public init(number: NSNumber) {
        if let decimal = number as? NSDecimalNumber {
            self.init(decimal.decimalValue)
        } else {
            switch Value.bridging(number) {
            case .int(let int): self.init(Decimal(int))
            case .bool(let bool): self.init(bool ? 1 : 0)
            default: self.init(number.doubleValue)
            }
        }
    }
    /// Converts an integer of any size, a `Float`, `Double`, `String`,
    /// `NSNumber`, `Decimal` or `Decimal128`; stops for any other type, as
    /// Realm's does. A string that is not a number gives NaN.
    public init(value: Any) {
        // Foundation's numbers first: they would also cast to `Double`, losing a decimal's digits.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self.init(number: number)
            return
        }
        switch value {
        case let decimal as Decimal128: self = decimal
        case let decimal as Decimal: self.init(decimal)
        case let string as String: self.init(Self.parse(string) ?? .nan)
        case let double as Double: self.init(double)
        case let float as Float: self.init(Double(float))
        case let integer as any BinaryInteger: self.init(Decimal(string: "\(integer)") ?? .nan)
        default:
            shoalPrecondition(ShoalError(.typeMismatch, "Cannot convert value '\(value)' of type '\(type(of: value))' to Decimal128.",
                context: ["value": "\(value)", "valueType": "\(type(of: value))"]))
        }
    }

    /// The decimal a string such as `"12.50"` spells, or `nil` when it spells none.
    static func parse(_ string: String) -> Decimal? {
        Decimal(string: string, locale: Locale(identifier: "en_US_POSIX"))
    }
    /// Creates a decimal from an integer literal: `let count: Decimal128 = 3`.
    public init(integerLiteral value: Int) { self.init(value) }
    /// Creates a decimal from a floating-point literal, through its shortest
    /// decimal description: `let price: Decimal128 = 19.99` is exactly 19.99.
    public init(floatLiteral value: Double) { self.init(value) }
    /// Creates a decimal from a string literal such as `"12.50"`; a string that is not a number gives NaN.
    public init(stringLiteral value: String) { self.value = Decimal(string: value) ?? .nan }

    /// Whether the value is not a number.
    public var isNaN: Bool { value.isNaN }
    /// The nearest double.
    public var doubleValue: Double { NSDecimalNumber(decimal: value).doubleValue }
    public var description: String { value.description }

    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool { lhs.value < rhs.value }
    /// The sum of two decimals.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { Decimal128(lhs.value + rhs.value) }
    /// The difference of two decimals.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { Decimal128(lhs.value - rhs.value) }
    /// The product of two decimals.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { Decimal128(lhs.value * rhs.value) }
    /// The quotient of two decimals.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { Decimal128(lhs.value / rhs.value) }
}
