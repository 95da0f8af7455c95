public import Foundation

/// Realm's `filter(_: NSPredicate)` and `index(matching: NSPredicate)`, for
/// the predicates Foundation on Linux can build: `NSPredicate(value:)` and
/// `NSCompoundPredicate`s of them. Foundation on Linux has no
/// `NSPredicate(format:)`; pass the same format string and arguments to
/// `filter(_:_:)` instead: `filter("age > %@", 3)`.
extension RealmCollection {
    /// The elements matching `predicate`; see the extension's note for the
    /// predicates Foundation on Linux can build.
    ///
    /// ```swift
    /// let all = realm.objects(Dog.self).filter(NSPredicate(value: true))
    /// ```
    public func filter(_ predicate: NSPredicate) -> Results<Element> {
        filter(PredicateFormat.translating(predicate))
    }

    /// The index of the first element matching `predicate`, in current order.
    public func index(matching predicate: NSPredicate) -> Int? {
        index(matching: PredicateFormat.translating(predicate))
    }
}

extension Map {
    /// The values matching `predicate`: `NSPredicate(value:)` and compounds
    /// of it, what Foundation on Linux can build.
    public func filter(_ predicate: NSPredicate) -> Results<Value> {
        filter(PredicateFormat.translating(predicate))
    }
}

extension PredicateFormat {
    /// The predicate format string `predicate` stands for; stops for a
    /// predicate Foundation on Linux cannot describe (a block), pointing to
    /// format strings.
    static func translating(_ predicate: NSPredicate) -> PredicateFormat {
        do { return try PredicateFormat(format(of: predicate)) } catch { shoalPrecondition(error) }
    }

    private static func format(of predicate: NSPredicate) -> String {
        if let compound = predicate as? NSCompoundPredicate {
            let parts = compound.subpredicates.map { "(\(format(of: $0)))" }
            switch compound.compoundPredicateType {
            case .not: return "NOT " + (parts.first ?? "TRUEPREDICATE")
            case .and: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case .or: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            @unknown default: break
            }
        }
        // Foundation on Linux keeps what an NSPredicate stands for in a
        // private `kind`: `.boolean(Bool)` for `NSPredicate(value:)`.
        for child in Mirror(reflecting: predicate).children where child.label == "kind" {
            if let value = Mirror(reflecting: child.value).children.first, value.label == "boolean", let bool = value.value as? Bool {
                return bool ? "TRUEPREDICATE" : "FALSEPREDICATE"
            }
        }
        shoalPrecondition(ShoalError(.invalidQuery,
            "Unsupported NSPredicate '\(predicate)': Foundation on Linux builds only NSPredicate(value:) and compounds of it,"
                + " and a block predicate cannot be run as a query. Pass the format string and its arguments instead:"
                + " filter(\"age > %@\", 3).",
            context: ["predicate": "\(predicate)"]))
    }
}
