import Foundation

/// Descriptions in Realm's format (its `RLMDescriptionWithMaxDepth`):
///
/// ```
/// Dog {
/// 	name = Rex;
/// 	owner = Person {
/// 		name = Ann;
/// 	};
/// 	tags = MutableSet<string> <0x600000c04000> (
/// 		[0] good
/// 	);
/// }
/// ```
///
/// A nested description is indented one tab deeper on every line; nesting
/// stops at depth 5 (`<Maximum depth exceeded>`), and a collection shows its
/// first 100 elements.
enum RealmDescription {
    static let maxDepth = 5
    static let maxElements = 100

    /// An object: its class, then `name = value;` per stored property.
    static func object(_ object: Object, depth: Int) -> String {
        if depth == 0 { return "<Maximum depth exceeded>" }
        if object.isInvalidated { return "[invalid object]" }
        let schema = object.objectSchema
        var out = "\(schema.className) {\n"
        for (index, property) in schema.properties.enumerated() where property.isStored {
            // A managed scalar prints its stored value, as Realm's description
            // does: a stored enum value with no case (a damaged or hostile
            // file) is shown, not trapped on as the typed getter would.
            let item: Any? =
                if let ref = object.ref, property.collection == .none, property.type != .object, property.type != .any {
                    ref.realm.boxed(ref.realm.value(ref.table, ref.key, index))
                } else {
                    object[property.name]
                }
            out += "\t\(property.name) = \(indented(value(item, depth: depth - 1)));\n"
        }
        return out + "}"
    }

    /// A list, set, result or linking objects: `Kind<Type> <address> (` and one `[i] element` line each.
    static func collection(kind: String, type: String, address: String, elements: [Any?], count: Int, depth: Int) -> String {
        if depth == 0 { return "<Maximum depth exceeded>" }
        let lines = elements.prefix(maxElements).enumerated().map { "\t[\($0.offset)] \(indented(value($0.element, depth: depth - 1)))" }
        var out = "\(kind)<\(type)> <\(address)> (\n" + lines.joined(separator: ",\n")
        if count > maxElements { out += "\n\t... \(count - maxElements) objects skipped." }
        return out + "\n)"
    }

    /// A map: `Map<keyType, valueType> <address> (` and one `[key]: value` line each.
    static func map(keyType: String, valueType: String, address: String, entries: [(key: String, value: Any?)], depth: Int) -> String {
        if depth == 0 { return "<Maximum depth exceeded>" }
        let lines = entries.prefix(maxElements).map { "\t[\($0.key)]: \(indented(value($0.value, depth: depth - 1)))" }
        var out = "Map<\(keyType), \(valueType)> <\(address)> (\n" + lines.joined(separator: ",\n")
        if entries.count > maxElements { out += "\n\t... \(entries.count - maxElements) objects skipped." }
        return out + "\n)"
    }

    /// A nested description's later lines, one tab deeper.
    static func indented(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: "\n\t") }

    /// The address Realm prints for a collection.
    static func address(_ object: AnyObject) -> String {
        "0x" + String(UInt(bitPattern: ObjectIdentifier(object).hashValue), radix: 16)
    }

    /// Realm's name for an element type: the class name of objects, `int`, `string`… for values.
    static func typeName(_ info: PersistedTypeInfo) -> String {
        if let type = info.objectType { return Object.className(of: type) }
        return info.type.description
    }

    /// One value as Realm prints it: strings bare, booleans as 0 and 1,
    /// nil as `(null)`, dates in UTC, data as hex bytes.
    static func value(_ value: Any?, depth: Int) -> String {
        guard let value = unwrap(value) else { return "(null)" }
        switch value {
        case let object as Object: return Self.object(object, depth: depth)
        case let describable as any RealmDescribable: return describable.realmDescription(depth: depth)
        case let any as AnyRealmValue: return Self.value(any.wrapped, depth: depth)
        case let string as String: return string
        case let bool as Bool: return bool ? "1" : "0"
        case let date as Date: return dateFormat(date)
        case let uuid as UUID: return uuid.uuidString
        case let data as Data:
            let shown = data.prefix(24).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            return "<\(shown) — \(data.count) total bytes>"
        case let raw as any RawRepresentable: return "\(raw.rawValue)"
        default: return "\(value)"
        }
    }

    private static func unwrap(_ value: Any?) -> Any? {
        guard let value = ValueCoercion.unwrap(value) else { return nil }
        if let any = value as? AnyRealmValue, case .none = any { return nil }
        return value
    }

    private static func dateFormat(_ date: Date) -> String {
        // Foundation traps on calendar arithmetic with NaN or far-out dates.
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e14 else { return "\(seconds) seconds since 1970" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
        return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }
}

/// A collection that describes itself in Realm's format at a nesting depth.
protocol RealmDescribable {
    func realmDescription(depth: Int) -> String
}

extension AnyRealmValue {
    /// The wrapped value, `nil` for `.none`.
    var wrapped: Any? {
        switch self {
        case .none: nil
        case .int(let v): v
        case .bool(let v): v
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .object(let v): v
        case .objectId(let v): v
        case .decimal128(let v): v
        case .uuid(let v): v
        case .dictionary(let v): v
        case .list(let v): v
        }
    }
}

extension RealmCollectionImpl {
    /// The collection in Realm's format, nested values described `depth` levels deep.
    func realmDescription(depth: Int) -> String {
        let address = Mirror(reflecting: self).displayStyle == .class
            ? RealmDescription.address(self as AnyObject)
            : managedInstance.map { RealmDescription.address($0) } ?? "0x0"
        return RealmDescription.collection(kind: kindName, type: RealmDescription.typeName(Element.persistedType),
            address: address, elements: prefix(RealmDescription.maxElements).map { $0 as Any? }, count: count, depth: depth)
    }
}

extension List: RealmDescribable {}
extension MutableSet: RealmDescribable {}
extension Results: RealmDescribable {}
extension LinkingObjects: RealmDescribable {}

extension Map: RealmDescribable {
    /// The map in Realm's format, nested values described `depth` levels deep.
    func realmDescription(depth: Int) -> String {
        RealmDescription.map(keyType: "string", valueType: RealmDescription.typeName(Value.persistedType),
            address: RealmDescription.address(self), entries: map { ($0.key.mapKeyString, $0.value as Any?) }, depth: depth)
    }
}
