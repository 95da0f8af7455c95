/// A property wrapper whose value may be read on any thread: it holds a
/// thread-safe reference to a managed object, results or list, and reading
/// it gives the value in the reading thread's Realm, as Realm's
/// `@ThreadSafe` does.
///
/// ```swift
/// final class Context: @unchecked Sendable {
///     @ThreadSafe var dog: Dog?
/// }
/// let context = Context()
/// context.dog = rex                         // on the Realm's thread
/// DispatchQueue.global().async {
///     print(context.dog?.name ?? "gone")    // rex in this thread's Realm
/// }
/// ```
///
/// Reading opens (or reuses) the reading thread's Realm for the value's
/// configuration and moves it to at least the version the reference was
/// made at; a deleted object reads as `nil`. Setting an unmanaged value stops
/// with Realm's message, as ``ThreadSafeReference`` does.
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined>: @unchecked Sendable {
    // Safe because: the stored reference (a Sendable handle and a
    // configuration) is only read and written under its lock.
    private let stored = Locked<(handle: ThreadSafeHandle, configuration: Realm.Configuration)?>(nil)

    /// Wraps a managed value, or `nil`.
    public init(wrappedValue: T?) {
        self.wrappedValue = wrappedValue
    }

    /// The value in the calling thread's Realm, or `nil`.
    public var wrappedValue: T? {
        get {
            guard let (handle, configuration) = stored.withLock({ $0 }) else { return nil }
            let realm: Realm
            do { realm = try Realm(configuration: configuration) } catch { shoalPrecondition(error) }
            guard handle.coordinator === realm.instance.coordinator else { return nil }
            if realm.instance.current.version < handle.version { realm.instance.refresh() }
            return handle.resolve(in: realm.instance) as? T
        }
        set {
            guard let newValue else {
                stored.withLock { $0 = nil }
                return
            }
            guard let resolvable = newValue as? any ThreadSafeResolvable, let handle = resolvable.threadSafeHandle(),
                let configuration = newValue.realm?.configuration
            else {
                shoalPrecondition(ShoalError(.unsupported, "Cannot construct reference to unmanaged object, which can be passed across threads directly"))
            }
            stored.withLock { $0 = (handle, configuration) }
        }
    }
}
