extension Array where Element == UInt8 {
    /// Appends `value` in little-endian byte order.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Stores `value` in little-endian byte order at `offset`, which must be in bounds.
    mutating func storeLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        precondition(offset >= 0 && offset + MemoryLayout<T>.size <= count, "store out of bounds")
        withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self) }
    }

    /// Reads a little-endian integer at `offset`, which must be in bounds.
    func loadLittleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        withUnsafeBytes { $0.loadLittleEndian(T.self, at: offset) }
    }
}

extension UnsafeRawBufferPointer {
    /// Reads a little-endian integer at `offset`, which must be in bounds.
    func loadLittleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        precondition(offset >= 0 && offset + MemoryLayout<T>.size <= count, "load out of bounds")
        return T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
