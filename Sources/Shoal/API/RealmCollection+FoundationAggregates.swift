public import Foundation

/// Aggregates returned as Foundation objects, which Realm offers because
/// `NSNumber` and `NSDate` can be its aggregates' result types: a number
/// property's result as an `NSNumber` (an `NSDecimalNumber` for a decimal
/// one), a date property's as an `NSDate`.
///
/// ```swift
/// let oldest: NSNumber? = realm.objects(Dog.self).max(ofProperty: "age")
/// let first: NSDate? = realm.objects(Dog.self).min(ofProperty: "born")
/// ```
extension RealmCollection {
    /// The smallest value of a numeric property as a Foundation number, or `nil` when there is none.
    public func min(ofProperty property: String) -> NSNumber? { aggregate(.min, property)?.foundationNumber }
    /// The largest value of a numeric property as a Foundation number, or `nil` when there is none.
    public func max(ofProperty property: String) -> NSNumber? { aggregate(.max, property)?.foundationNumber }
    /// The earliest value of a date property as a Foundation date, or `nil` when there is none.
    public func min(ofProperty property: String) -> NSDate? { aggregate(.min, property).flatMap(Self.foundationDate) }
    /// The latest value of a date property as a Foundation date, or `nil` when there is none.
    public func max(ofProperty property: String) -> NSDate? { aggregate(.max, property).flatMap(Self.foundationDate) }
    /// The sum of a numeric property as a Foundation number; `0` when there are no objects.
    public func sum(ofProperty property: String) -> NSNumber { (aggregate(.sum, property) ?? .int(0)).foundationNumber ?? 0 }
    /// The average of a numeric property as a Foundation number, or `nil` when there are no objects.
    public func average(ofProperty property: String) -> NSNumber? { aggregate(.average, property)?.foundationNumber }

    private static func foundationDate(_ value: Value) -> NSDate? {
        guard case .date(let date) = value else { return nil }
        return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
    }
}

extension Map {
    /// The smallest value of a numeric property of the map's objects as a Foundation number, or `nil` when there is none.
    public func min(ofProperty property: String) -> NSNumber? { valueCollection.min(ofProperty: property) }
    /// The largest value of a numeric property of the map's objects as a Foundation number, or `nil` when there is none.
    public func max(ofProperty property: String) -> NSNumber? { valueCollection.max(ofProperty: property) }
    /// The earliest value of a date property of the map's objects as a Foundation date, or `nil` when there is none.
    public func min(ofProperty property: String) -> NSDate? { valueCollection.min(ofProperty: property) }
    /// The latest value of a date property of the map's objects as a Foundation date, or `nil` when there is none.
    public func max(ofProperty property: String) -> NSDate? { valueCollection.max(ofProperty: property) }
    /// The sum of a numeric property of the map's objects as a Foundation number; `0` when there are none.
    public func sum(ofProperty property: String) -> NSNumber { valueCollection.sum(ofProperty: property) }
    /// The average of a numeric property of the map's objects as a Foundation number, or `nil` when there are none.
    public func average(ofProperty property: String) -> NSNumber? { valueCollection.average(ofProperty: property) }
}
