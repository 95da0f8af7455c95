/// The union operators of key-value coding, as Realm's collections answer
/// them through Foundation: each takes the values a key path gives for every
/// element.
enum KVCUnion: String {
    case unionOfObjects = "@unionOfObjects"
    case distinctUnionOfObjects = "@distinctUnionOfObjects"
    case unionOfArrays = "@unionOfArrays"
    case distinctUnionOfArrays = "@distinctUnionOfArrays"

    /// The result for the values the key path gave, one per element.
    func apply(to values: [Any?]) -> [Any] {
        let present = values.compactMap { $0 }
        switch self {
        case .unionOfObjects: return present
        case .distinctUnionOfObjects: return Self.distinct(present)
        case .unionOfArrays: return present.flatMap(Self.elements)
        case .distinctUnionOfArrays: return Self.distinct(present.flatMap(Self.elements))
        }
    }

    /// The elements of a collection value (a `List`, a `MutableSet`, an array).
    private static func elements(_ value: Any) -> [Any] {
        if let sequence = value as? any Sequence { return Array(sequence.map { $0 as Any }) }
        shoalPrecondition(ShoalError(.invalidKeyPath, "@unionOfArrays and @distinctUnionOfArrays need a key path to collections; '\(value)' is not one."))
    }

    /// Each value once, in first-seen order: objects by identity, other values by value.
    private static func distinct(_ values: [Any]) -> [Any] {
        var seen: [Value] = []
        var seenObjects: [Object] = []
        var out: [Any] = []
        for value in values {
            if let object = value as? Object {
                if !seenObjects.contains(where: { $0 === object || $0.isSameObject(as: object) }) {
                    seenObjects.append(object)
                    out.append(value)
                }
            } else if let persistable = value as? any PersistableValue {
                let stored = persistable.toValue(nil)
                if !seen.contains(stored) {
                    seen.append(stored)
                    out.append(value)
                }
            } else {
                out.append(value)
            }
        }
        return out
    }
}
