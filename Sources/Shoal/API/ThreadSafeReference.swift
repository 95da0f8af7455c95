import Foundation
/// Something confined to the thread of its live Realm: objects and collections.
public protocol ThreadConfined {
    /// The Realm managing it, or `nil` when unmanaged.
    var realm: Realm? { get }
    /// Whether it can no longer be used.
    var isInvalidated: Bool { get }
    /// Whether it is pinned to one version.
    var isFrozen: Bool { get }
}

extension Object: ThreadConfined {}
extension Results: ThreadConfined {}
extension List: ThreadConfined {}
extension MutableSet: ThreadConfined {}
extension LinkingObjects: ThreadConfined {}
extension AnyRealmCollection: ThreadConfined {}
extension Map: ThreadConfined {}

/// Hands a live object or collection to another thread.
///
/// ```swift
/// let ref = ThreadSafeReference(to: dog)
/// Thread.detachNewThread {
///     let realm = try! Realm(configuration: config)
///     let dog = realm.resolve(ref)
/// }
/// ```
/// A reference resolves once; resolving it again returns `nil`.
public final class ThreadSafeReference<Confined: ThreadConfined>: @unchecked Sendable {
    // Safe because: the handle holds only keys and the coordinator (Sendable);
    // whether it was resolved is kept under a lock.
    private let handle: ThreadSafeHandle
    private let resolved = Locked(false)

    /// Creates a reference to a managed object, results or list.
    ///
    /// Stops for unmanaged values, as Realm does.
    public init(to value: Confined) {
        guard let resolvable = value as? any ThreadSafeResolvable, let handle = resolvable.threadSafeHandle() else {
            shoalPrecondition(ShoalError(.unsupported, "Cannot construct reference to unmanaged object, which can be passed across threads directly"))
        }
        self.handle = handle
    }

    func take() -> ThreadSafeHandle? {
        resolved.withLock { resolved in
            if resolved { return nil }
            resolved = true
            return handle
        }
    }
}

extension Realm {
    /// The value a reference points at, in this Realm, or `nil` if it was
    /// deleted or the reference was already resolved. Advances this Realm to
    /// at least the version the reference was made at.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        instance.verifyThread()
        guard let handle = reference.take() else { return nil }
        guard handle.coordinator === instance.coordinator else {
            shoalPrecondition(ShoalError(.wrongRealm, "Cannot resolve a thread safe reference in a Realm of a different database."))
        }
        if instance.current.version < handle.version { instance.refresh() }
        return handle.resolve(in: instance) as? Confined
    }
}

struct ThreadSafeHandle: Sendable {
    enum Target: Sendable {
        case object(Link)
        /// A collection, read again through the resolving instance (its
        /// query, sort and owner kept): `nil` once its owner is gone.
        case collection(Rebinder)
    }
    let coordinator: RealmCoordinator
    let version: UInt64
    let target: Target

    func resolve(in instance: RealmInstance) -> Any? {
        switch target {
        case .object(let link):
            return instance.current.isAlive(link.table, link.key) ? instance.accessor(link) : nil
        case .collection(let rebinder):
            return rebinder.rebind(instance)
        }
    }
}

/// Reads a managed collection through another instance of its store.
struct Rebinder: @unchecked Sendable {
    // Safe because: `rebind` only reads the collection's immutable
    // description (store, table, source, owner key and property).
    let rebind: (RealmInstance) -> Any?
}

protocol ThreadSafeResolvable {
    func threadSafeHandle() -> ThreadSafeHandle?
}

extension Object: ThreadSafeResolvable {
    func threadSafeHandle() -> ThreadSafeHandle? {
        guard let ref else { return nil }
        ref.checkValid()
        return ThreadSafeHandle(coordinator: ref.realm.coordinator, version: ref.realm.current.version, target: .object(ref.link))
    }
}

extension RealmCollection {
    /// A handle that reads this managed collection again in the resolving
    /// Realm; `nil` when unmanaged.
    func collectionHandle() -> ThreadSafeHandle? {
        guard let base = resultsBase else { return nil }
        if isInvalidated { shoalPrecondition(ShoalError(.objectInvalidated, "Object has been deleted or invalidated.")) }
        return ThreadSafeHandle(coordinator: base.instance.coordinator, version: base.instance.current.version,
            target: .collection(Rebinder { self.reboundIfValid(to: $0) }))
    }

    /// The same collection read through another instance of its store, or
    /// `nil` when its owner does not exist there.
    func reboundIfValid(to instance: RealmInstance) -> Self? {
        let collection = rebound(to: instance)
        return collection.isInvalidated ? nil : collection
    }
}

extension Results: ThreadSafeResolvable { func threadSafeHandle() -> ThreadSafeHandle? { collectionHandle() } }
extension List: ThreadSafeResolvable { func threadSafeHandle() -> ThreadSafeHandle? { collectionHandle() } }
extension MutableSet: ThreadSafeResolvable { func threadSafeHandle() -> ThreadSafeHandle? { collectionHandle() } }
extension LinkingObjects: ThreadSafeResolvable { func threadSafeHandle() -> ThreadSafeHandle? { collectionHandle() } }
extension AnyRealmCollection: ThreadSafeResolvable { func threadSafeHandle() -> ThreadSafeHandle? { collectionHandle() } }

extension Map: ThreadSafeResolvable {
    func threadSafeHandle() -> ThreadSafeHandle? {
        guard let slot else { return nil }
        slot.ref.checkValid()
        return ThreadSafeHandle(coordinator: slot.ref.realm.coordinator, version: slot.ref.realm.current.version,
            target: .collection(Rebinder { self.reboundIfValid(to: $0) }))
    }

    /// The same map read through another instance of its store, or `nil`
    /// when its owner does not exist there.
    func reboundIfValid(to instance: RealmInstance) -> Map? {
        let map = rebinding(to: instance)
        return map.isInvalidated ? nil : map
    }
}
