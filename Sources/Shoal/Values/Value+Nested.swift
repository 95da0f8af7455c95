/// One step from a mixed value into a collection nested in it: a position
/// in a list or a key of a dictionary.
enum MixedPathStep: Hashable, Sendable, CustomStringConvertible {
    case index(Int)
    case key(String)

    var description: String {
        switch self {
        case .index(let i): "[\(i)]"
        case .key(let k): "['\(k)']"
        }
    }
}

extension Value {
    /// The value `path` leads to inside this one, or `nil` when a step
    /// finds no list position or dictionary key.
    func nested(at path: some Collection<MixedPathStep>) -> Value? {
        var current = self
        for step in path {
            switch (step, current) {
            case (.index(let i), .list(let elements)) where i >= 0 && i < elements.count: current = elements[i]
            case (.key(let k), .dictionary(let entries)):
                guard let next = entries[k] else { return nil }
                current = next
            default: return nil
            }
        }
        return current
    }

    /// Changes the value `path` leads to inside this one with `body`.
    ///
    /// - Returns: `false`, changing nothing, when a step finds no list
    ///   position or dictionary key.
    mutating func updateNested<E: Error>(at path: ArraySlice<MixedPathStep>, _ body: (inout Value) throws(E) -> Void) throws(E) -> Bool {
        guard let step = path.first else {
            try body(&self)
            return true
        }
        switch (step, self) {
        case (.index(let i), .list(var elements)) where i >= 0 && i < elements.count:
            // Taken out of `self` first, so that the array is changed in place.
            self = .null
            defer { self = .list(elements) }
            return try elements[i].updateNested(at: path.dropFirst(), body)
        case (.key(let k), .dictionary(var entries)):
            guard var child = entries[k] else { return false }
            self = .null
            entries[k] = nil
            defer {
                entries[k] = child
                self = .dictionary(entries)
            }
            return try child.updateNested(at: path.dropFirst(), body)
        default:
            return false
        }
    }
}
