import ShoalTestSupport
@testable import Shoal

extension FaultyFileIO {
    /// What a reboot could find after a crash in the state `model`.
    ///
    /// - Parameters:
    ///   - fates: the fate of each unsynced write or truncation, by its rank among
    ///     all of them (0 = oldest). A truncation happens only if `.persisted`.
    ///   - keepDirectoryChanges: whether unsynced creates, renames and unlinks survive.
    static func crashImage(
        of model: Model, fates: (Int) -> Fate, keepDirectoryChanges: Bool = false
    ) -> FaultyFileIO {
        var image = Model()
        image.names = keepDirectoryChanges ? model.names : model.durableNames
        if !keepDirectoryChanges {
            // A name under a directory whose creation is not durable is lost with it.
            let lost = model.directories.subtracting(model.durableDirectories)
            image.names = image.names.filter { name, _ in
                var directory = parentDirectory(of: name)
                while directory != "/" && directory != "." {
                    if lost.contains(directory) { return false }
                    directory = parentDirectory(of: directory)
                }
                return true
            }
        }
        image.directories = keepDirectoryChanges ? model.directories : model.durableDirectories
        image.durableDirectories = image.directories
        image.durableNames = image.names
        image.nextInode = model.nextInode
        var rank: [Int: Int] = [:]
        for (index, pending) in model.pendingOperations.enumerated() { rank[pending.sequence] = index }
        for inodeID in Set(image.names.values) {
            let inode = model.inodes[inodeID]!
            var bytes = inode.durable
            for pending in inode.pending {
                let fate = fates(rank[pending.sequence]!)
                switch pending.kind {
                case .truncate(let size):
                    if fate == .persisted { bytes = resized(bytes, to: size) }
                case .write(let offset, let data):
                    var random = SeededRandom(seed: UInt64(pending.sequence) &* 0x9E37_79B9)
                    switch fate {
                    case .persisted: overwrite(&bytes, at: offset, with: data)
                    case .dropped: break
                    case .zeroed: overwrite(&bytes, at: offset, with: [UInt8](repeating: 0, count: data.count))
                    case .garbage:
                        overwrite(&bytes, at: offset, with: data.map { _ in UInt8.random(in: 0...255, using: &random) })
                    case .torn(let kept): overwrite(&bytes, at: offset, with: Array(data.prefix(kept)))
                    }
                }
            }
            image.inodes[inodeID] = Inode(current: bytes, durable: bytes, pending: [])
        }
        return FaultyFileIO(model: image)
    }

    /// The crash image of `model` in which the first `kept` unsynced operations
    /// persisted, the next one met `fate`, and every later one was dropped.
    static func crashImage(
        of model: Model, keptPending kept: Int, then fate: Fate, keepDirectoryChanges: Bool = false
    ) -> FaultyFileIO {
        crashImage(
            of: model, fates: { $0 < kept ? .persisted : $0 == kept ? fate : .dropped },
            keepDirectoryChanges: keepDirectoryChanges)
    }

    private static func overwrite(_ bytes: inout [UInt8], at offset: Int, with data: [UInt8]) {
        if bytes.count < offset + data.count { bytes = resized(bytes, to: offset + data.count) }
        bytes.replaceSubrange(offset..<(offset + data.count), with: data)
    }

    private static func resized(_ bytes: [UInt8], to size: Int) -> [UInt8] {
        size <= bytes.count ? Array(bytes.prefix(size)) : bytes + [UInt8](repeating: 0, count: size - bytes.count)
    }
}
