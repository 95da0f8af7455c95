/// Keeps an observation alive: hold it for as long as you want callbacks.
///
/// ```swift
/// token = dogs.observe { [weak self] change in self?.apply(change) }
/// ...
/// token?.invalidate()   // or let it go
/// ```
///
/// ``invalidate()`` stops further callbacks; releasing the token does the
/// same. A block that captures the object holding its token makes a retain
/// cycle: capture `self` weakly, as with Realm.
public final class NotificationToken: Sendable {
    private let stop: @Sendable () -> Void
    /// The store the observation belongs to, for `withoutNotifying`.
    let storeIdentifier: String
    /// The subscription to skip, for `withoutNotifying` (nil for `Realm.observe`).
    let subscriptionID: Int?

    init(storeIdentifier: String, subscriptionID: Int?, stop: @escaping @Sendable () -> Void) {
        self.storeIdentifier = storeIdentifier
        self.subscriptionID = subscriptionID
        self.stop = stop
    }

    deinit { stop() }

    /// Stops the observation. Once it returns no callback starts (from
    /// inside a callback, the running one finishes). Calling it again does
    /// nothing.
    public func invalidate() { stop() }
}
