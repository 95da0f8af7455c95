import CXXHash

extension Schema {
    /// A canonical, order-sensitive text encoding of the schema: one line per
    /// property. Two schemas are interchangeable for stored data exactly when
    /// their canonical encodings are equal. An embedded class's line ends
    /// in ` embedded` (format version 3); other lines are as version 1 and 2
    /// wrote them, so that a schema without embedded classes keeps its
    /// fingerprint.
    var canonicalEncoding: String {
        var out = ""
        for os in objectSchema {
            out += "class \(os.className)\(os.isEmbedded ? " embedded" : "")\n"
            for p in os.properties {
                out += "  \(p.name) \(p.type.rawValue) \(p.collection.rawValue) \(p.isOptional ? 1 : 0)"
                out += " \(p.isPrimary ? 1 : 0) \(p.isIndexed ? 1 : 0) \(p.objectClassName ?? "-") \(p.linkOriginPropertyName ?? "-")\n"
            }
        }
        return out
    }

    /// XXH3-64 of ``canonicalEncoding``: stable across processes and platforms.
    var fingerprint: UInt64 {
        var bytes = Array(canonicalEncoding.utf8)
        return bytes.withUnsafeMutableBytes { XXH3_64bits($0.baseAddress, $0.count) }
    }

    /// Human-readable differences between this (stored) schema and `declared`.
    func differences(to declared: Schema) -> [String] {
        var out: [String] = []
        for os in objectSchema where declared[os.className] == nil {
            out.append("Class '\(os.className)' was removed.")
        }
        for d in declared.objectSchema {
            guard let s = self[d.className] else {
                out.append("Class '\(d.className)' was added.")
                continue
            }
            if s.isEmbedded != d.isEmbedded {
                out.append("Class '\(d.className)' changed from \(s.isEmbedded ? "embedded" : "top-level") to \(d.isEmbedded ? "embedded" : "top-level").")
            }
            for p in s.properties where d[p.name] == nil {
                out.append("Property '\(d.className).\(p.name)' was removed.")
            }
            for p in d.properties {
                guard let old = s[p.name] else {
                    out.append("Property '\(d.className).\(p.name)' was added.")
                    continue
                }
                if old != p { out.append("Property '\(d.className).\(p.name)' changed from '\(old)' to '\(p)'.") }
            }
        }
        return out
    }
}
