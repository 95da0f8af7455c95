import CSwiftRuntime

/// A weak reference to a ``RealmInstance`` that does not make the instance
/// itself weakly referenced.
///
/// The first `weak` reference to an object gives it a side table, and from
/// then on every retain and release of it takes the runtime's slow path.
/// An instance is retained by every accessor, slot and read, so a `weak`
/// reference to it (the per-thread cache, the delivery queue's box) made
/// retains a third of the time of iterating a `Results`. Holders keep this
/// handle instead: it points at the instance without retaining it, and
/// ``load()`` takes a strong reference only if the instance is not being
/// deinitialised, as a weak load does: `swift_tryRetain` fails once the
/// reference count has reached zero, and the instance's `deinit` detaches
/// the handle under the same lock before its memory can go.
final class InstanceHandle: @unchecked Sendable {
    // Safe because: the instance pointer is only reached inside `instance`'s lock.
    private let instance = Locked<UnsafeMutableRawPointer?>(nil)

    /// Points the handle at its instance (from the instance's initializer).
    func attach(_ instance: RealmInstance) {
        self.instance.withLock { $0 = Unmanaged.passUnretained(instance).toOpaque() }
    }

    /// Forgets the instance (from its `deinit`).
    func detach() {
        instance.withLock { $0 = nil }
    }

    /// The instance, retained, or `nil` once it is gone or going.
    func load() -> RealmInstance? {
        instance.withLock { instance in
            guard let instance, swift_tryRetain(instance) != nil else { return nil }
            return Unmanaged<RealmInstance>.fromOpaque(instance).takeRetainedValue()
        }
    }
}
