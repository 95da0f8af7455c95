// A schema in a log or snapshot (format versions 1 to 3):
//
//   schema    := classCount:varint class{classCount}
//   class     := name:string entryCount:varint entry{entryCount}
//   entry     := property | classFlags
//   property  := name:string type:u8 collection:u8 flags:u8 target:string origin:string
//   flags     := bit0 optional | bit1 primary key | bit2 indexed
//   classFlags := "":string 0xFF:u8 flags:u8        (version 3)
//   class flags := 0x01 embedded (the only value written)
//
// `target` and `origin` are empty when absent. A class-flags entry (empty
// name, type 0xFF) is written first, and only for an embedded class: so every
// version 1 or 2 schema is a version 3 schema with the same meaning, and a
// version 2 reader, which refuses a version 3 file by its header, would never
// take an embedded class for a top-level one. Schema records carry the
// encoding and its XXH3 fingerprint (`Schema.fingerprint`), so a reader can
// check one against the other.

/// Encodes a ``Schema`` so that logs describe themselves, and decodes it back.
enum SchemaCodec {
    /// The type byte of a class-flags entry (no property type has it).
    static let classFlagsTag: UInt8 = 0xFF
    /// Class flag bit 0: the class is embedded.
    static let embeddedFlag: UInt8 = 1

    static func encode(_ schema: Schema) -> [UInt8] {
        var w = ByteWriter()
        encode(schema, into: &w)
        return w.bytes
    }

    static func encode(_ schema: Schema, into w: inout ByteWriter) {
        w.varint(schema.objectSchema.count)
        for os in schema.objectSchema {
            w.string(os.className)
            w.varint(os.properties.count + (os.isEmbedded ? 1 : 0))
            if os.isEmbedded {
                w.string("")
                w.byte(classFlagsTag)
                w.byte(embeddedFlag)
            }
            for p in os.properties {
                w.string(p.name)
                w.byte(UInt8(p.type.rawValue))
                w.byte(UInt8(p.collection.rawValue))
                w.byte((p.isOptional ? 1 : 0) | (p.isPrimary ? 2 : 0) | (p.isIndexed ? 4 : 0))
                w.string(p.objectClassName ?? "")
                w.string(p.linkOriginPropertyName ?? "")
            }
        }
    }

    static func decode(_ bytes: [UInt8]) throws(DecodingFailure) -> Schema {
        var r = ByteReader(bytes)
        let schema = try decode(&r)
        guard r.isAtEnd else { throw r.fail("bytes left after the schema") }
        return schema
    }

    static func decode(_ r: inout ByteReader) throws(DecodingFailure) -> Schema {
        let classCount = try r.count("class count")
        var classes: [ObjectSchema] = []
        for _ in 0..<classCount {
            let name = try r.string()
            let propertyCount = try r.count("property count")
            var properties: [Property] = []
            var isEmbedded = false
            for entry in 0..<propertyCount {
                let pname = try r.string()
                let start = r.offset
                if pname.isEmpty, entry == 0, r.peek() == classFlagsTag {
                    _ = try r.byte()
                    let flags = try r.byte()
                    // Written only for an embedded class: any other flags are damage.
                    guard flags == embeddedFlag else {
                        throw DecodingFailure(offset: start, reason: "unknown class flags \(flags) for '\(name)'")
                    }
                    isEmbedded = true
                    continue
                }
                guard let type = PropertyType(rawValue: Int(try r.byte())),
                    let collection = CollectionKind(rawValue: Int(try r.byte()))
                else { throw DecodingFailure(offset: start, reason: "unknown property type or collection kind for '\(name).\(pname)'") }
                let flags = try r.byte()
                let target = try r.string()
                let origin = try r.string()
                properties.append(Property(
                    name: pname, type: type, isOptional: flags & 1 != 0, isPrimary: flags & 2 != 0, isIndexed: flags & 4 != 0,
                    collection: collection, objectClassName: target.isEmpty ? nil : target,
                    linkOriginPropertyName: origin.isEmpty ? nil : origin))
            }
            classes.append(ObjectSchema(className: name, properties: properties, isEmbedded: isEmbedded))
        }
        let schema = Schema(classes)
        do { try schema.validate() } catch {
            throw DecodingFailure(offset: r.offset, reason: "stored schema is invalid: \(error.message)")
        }
        return schema
    }
}
