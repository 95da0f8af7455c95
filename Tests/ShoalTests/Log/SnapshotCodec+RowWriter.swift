import Foundation
import OrderedCollections
@testable import Shoal

extension SnapshotCodec {
    /// Writes `snapshot` in the row form of format version 1. Shoal
    /// no longer writes it; tests use it to make row snapshots of any state
    /// for ``decodeRows(_:)``.
    static func encodeRows(_ snapshot: Snapshot) -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 16)
        w.varint(UInt64(snapshot.version))
        w.varint(snapshot.schemaVersion)
        SchemaCodec.encode(snapshot.schema, into: &w)
        for table in snapshot.tables {
            let os = snapshot.schema[table.key]
            w.varint(table.alive.count)
            w.varint(table.count)
            for key in table.liveKeys {
                w.varint(UInt64(bitPattern: key.rawValue))
                for p in 0..<table.scalars.count {
                    ChangeRecordCodec.encode(os.properties[p].collection == .none ? table.scalars[p][key.slot] : .null, into: &w)
                }
                for p in 0..<table.scalars.count {
                    switch os.properties[p].collection {
                    case .none: continue
                    case .list, .set:
                        let elements = snapshot.collectionElements(table.key, key, p)
                        w.varint(elements.count)
                        for v in elements { ChangeRecordCodec.encode(v, into: &w) }
                    case .map:
                        let map = snapshot.map(table.key, key, p)
                        w.varint(map.count)
                        for (k, v) in map {
                            w.string(k)
                            ChangeRecordCodec.encode(v, into: &w)
                        }
                    }
                }
                // Linking objects keep link order, which re-linking in table
                // order would not reproduce: store it.
                let backlinks = table.backlinks[key.slot]
                w.varint(backlinks.count)
                for b in backlinks {
                    w.varint(Int(b.origin.rawValue))
                    w.varint(b.property)
                    w.varint(UInt64(bitPattern: b.key.rawValue))
                }
            }
        }
        return w.bytes
    }
}
