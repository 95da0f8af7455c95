public import Dispatch
public import OpenCombine
public import Shoal

/// A Realm type that publishers can observe and hand over between queues:
/// `Object`, `Projection`, `Results`, `List`, `MutableSet`,
/// `LinkingObjects`, `AnyRealmCollection` and `Map`.
///
/// You do not conform your own types: `valuePublisher(_:keyPaths:)`,
/// `collectionPublisher`, `objectWillChange`, `freeze()` and
/// `threadSafeReference()` are available on these.
///
/// - Note: Differs from Realm: the requirements are Shoal's own (Realm's
///   protocol has `_observe` requirements taking a subscriber).
public protocol RealmSubscribable: ThreadConfined {
    /// A frozen copy pinned at the current version, usable from any thread.
    func freeze() -> Self
    /// Registers an observation for the publishers: `subscriber` receives
    /// the value at first (collections) and after each change, finishes
    /// when an observed object is deleted, and fails when observation cannot
    /// start. Its demand is not consulted. For ShoalCombine's publishers;
    /// use their API instead.
    func _observe<S: Subscriber>(_ keyPaths: [String]?, on queue: DispatchQueue?, _ subscriber: S) -> NotificationToken
    where S.Input == Self, S.Failure == any Error
    /// The same value read through `realm` (a live Realm of the same store
    /// on the calling thread or queue), or `nil` if it no longer exists.
    /// For ShoalCombine's `receive(on:)`; use the publishers instead.
    func _handedOver(to realm: Realm) -> Self?
}

extension Object: RealmSubscribable {
    /// For ShoalCombine's publishers (``RealmSubscribable/_observe(_:on:_:)``); use their API instead.
    public func _observe<S: Subscriber>(_ keyPaths: [String]?, on queue: DispatchQueue?, _ subscriber: S) -> NotificationToken
    where S.Input: Object, S.Failure == any Error {
        observe(keyPaths: keyPaths, on: queue) { (change: ObjectChange<S.Input>) in
            switch change {
            case .change(let object, _): _ = subscriber.receive(object)
            case .deleted: subscriber.receive(completion: .finished)
            case .error(let error): subscriber.receive(completion: .failure(error))
            }
        }
    }

    /// For ShoalCombine's `receive(on:)` (``RealmSubscribable/_handedOver(to:)``); use the publishers instead.
    public func _handedOver(to realm: Realm) -> Self? { handedOver(to: realm) }
}

extension Map: RealmSubscribable {
    /// For ShoalCombine's publishers (``RealmSubscribable/_observe(_:on:_:)``); use their API instead.
    public func _observe<S: Subscriber>(_ keyPaths: [String]?, on queue: DispatchQueue?, _ subscriber: S) -> NotificationToken
    where S.Input == Map, S.Failure == any Error {
        observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let map), .update(let map, _, _, _): _ = subscriber.receive(map)
            case .error(let error): subscriber.receive(completion: .failure(error))
            }
        }
    }

    /// For ShoalCombine's `receive(on:)` (``RealmSubscribable/_handedOver(to:)``); use the publishers instead.
    public func _handedOver(to realm: Realm) -> Map? { handedOver(to: realm) }
}

/// The observation shared by every collection kind.
extension RealmCollection where Self: RealmSubscribable {
    /// For ShoalCombine's publishers (``RealmSubscribable/_observe(_:on:_:)``); use their API instead.
    public func _observe<S: Subscriber>(_ keyPaths: [String]?, on queue: DispatchQueue?, _ subscriber: S) -> NotificationToken
    where S.Input == Self, S.Failure == any Error {
        observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let collection), .update(let collection, _, _, _): _ = subscriber.receive(collection)
            case .error(let error): subscriber.receive(completion: .failure(error))
            }
        }
    }

    /// For ShoalCombine's `receive(on:)` (``RealmSubscribable/_handedOver(to:)``); use the publishers instead.
    public func _handedOver(to realm: Realm) -> Self? { handedOver(to: realm) }
}

extension Results: RealmSubscribable {}
extension List: RealmSubscribable {}
extension MutableSet: RealmSubscribable {}
extension LinkingObjects: RealmSubscribable {}
extension AnyRealmCollection: RealmSubscribable {}

/// A subscriber handing what it receives to closures: how publishers hear
/// from ``RealmSubscribable/_observe(_:on:_:)``.
struct Forwarder<Input>: Subscriber {
    typealias Failure = any Error
    let combineIdentifier = CombineIdentifier()
    let value: (Input) -> Void
    let completion: (Subscribers.Completion<any Error>) -> Void

    func receive(subscription: any Subscription) {}
    func receive(_ input: Input) -> Subscribers.Demand {
        value(input)
        return .none
    }
    func receive(completion: Subscribers.Completion<any Error>) { self.completion(completion) }
}
