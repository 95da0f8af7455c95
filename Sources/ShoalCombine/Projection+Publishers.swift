public import Dispatch
public import OpenCombine
public import Shoal

extension ProjectionObservable {
    /// For ShoalCombine's publishers (``RealmSubscribable/_observe(_:on:_:)``):
    /// sends the projection after each change of a projected property, and
    /// finishes when the object is deleted. Use `valuePublisher(_:keyPaths:)` instead.
    public func _observe<S: Subscriber>(_ keyPaths: [String]?, on queue: DispatchQueue?, _ subscriber: S) -> NotificationToken
    where S.Input == Self, S.Failure == any Error {
        observe(keyPaths: keyPaths, on: queue) { (change: ObjectChange<Self>) in
            switch change {
            case .change(let projection, _): _ = subscriber.receive(projection)
            case .deleted: subscriber.receive(completion: .finished)
            case .error(let error): subscriber.receive(completion: .failure(error))
            }
        }
    }

    /// For ShoalCombine's `receive(on:)` (``RealmSubscribable/_handedOver(to:)``):
    /// a projection of the same object read through `realm`.
    public func _handedOver(to realm: Realm) -> Self? {
        let projectionType = type(of: self)
        return (rootObject as Object).handedOver(to: realm).map { projectionType.init(projecting: $0 as! Root) }
    }
}

extension Projection: RealmSubscribable {}

extension Projection: ObservableObject {
    /// A publisher that emits `Void` before each change of a projected
    /// property (or the object's deletion) becomes visible on this thread.
    public var objectWillChange: RealmPublishers.WillChange<Projection> {
        RealmPublishers.WillChange(self)
    }
}

/// A publisher that emits a managed object's projection each time a
/// projected property changes, and finishes when the object is deleted.
///
/// ```swift
/// let cancellable = valuePublisher(personProjection, keyPaths: ["firstName"])
///     .sink(receiveCompletion: { _ in print("deleted") }, receiveValue: { print($0.firstName) })
/// ```
public func valuePublisher<T: ProjectionObservable & RealmSubscribable>(_ projection: T, keyPaths: [String]? = nil)
    -> RealmPublishers.Value<T>
{
    RealmPublishers.Value(projection, keyPaths: keyPaths)
}

/// A publisher that emits an `ObjectChange` of a managed object's
/// projection each time a projected property changes (under the
/// projection's property names), and finishes when the object is deleted.
///
/// ```swift
/// let cancellable = changesetPublisher(personProjection, keyPaths: ["firstName"]).sink { change in
///     if case .change(let person, let properties) = change { print(person.firstName, properties.map(\.name)) }
/// }
/// ```
///
/// `keyPaths` names projected properties as the projection's
/// `observe(keyPaths:on:_:)` does: by the root key path each projects or by
/// its name in the projection; `nil` for all. Stops, as Realm does, for a
/// projection of an unmanaged or deleted object.
public func changesetPublisher<T: ProjectionObservable & RealmSubscribable>(_ projection: T, keyPaths: [String]? = nil)
    -> RealmPublishers.ObjectChangeset<T>
{
    RealmPublishers.ObjectChangeset(projection) { queue, deliver in projection.observe(keyPaths: keyPaths, on: queue, deliver) }
}
