/// An asynchronous sequence of an object's changes, each carrying the
/// object frozen at the version it describes: usable from any task.
/// Shoal's addition to Realm's API.
///
/// ```swift
/// for await change in dog.changes(keyPaths: ["name"]) {
///     if case .change(let dog, let properties) = change { print(dog.name, properties.map(\.name)) }
/// }
/// ```
///
/// There is no initial element (as object observation has no initial
/// callback). Changes that pile up are merged. The sequence ends after
/// `.deleted`, or when the iterating task is cancelled.
public struct ObjectChanges<T: Object>: AsyncSequence, @unchecked Sendable {
    // Safe because: the registration reads only the object's store, table and key.
    /// Each element is one change of the object, carrying it frozen at the version it describes.
    public typealias Element = ObjectChange<T>
    /// Iteration never throws: the sequence ends after `.deleted` or `.error`, or when the task is cancelled.
    public typealias Failure = Never
    let pulled: PulledObservation
    let link: Link
    let names: [String]

    init(object: T, keyPaths: [String]?) {
        guard let ref = object.ref else {
            shoalPrecondition(ShoalError(.unsupported, "Only objects which are managed by a Realm support change notifications"))
        }
        ref.realm.checkObservable()
        guard ref.isValid else {
            shoalPrecondition(ShoalError(.objectInvalidated,
                "Accessing object of type \(ref.realm.schema[ref.table].className) which has been invalidated or deleted"))
        }
        let link = ref.link
        self.link = link
        names = ref.realm.schema[ref.table].properties.map(\.name)
        pulled = PulledObservation(instance: ref.realm, filter: ref.realm.modificationFilter(keyPaths, table: link.table, unfiltered: .shallow)) {
            snapshot, filter in ObjectNotifier(object: link, snapshot: snapshot, filter: filter)
        }
    }

    /// Iterates the changes; ends after `.deleted` or when its task is cancelled.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: ObjectChanges
        var signals: AsyncStream<Void>.Iterator
        var ended = false

        public mutating func next() async -> ObjectChange<T>? {
            while !ended && !Task.isCancelled {
                if let (frozen, delivery) = sequence.pulled.take() {
                    switch delivery {
                    case .object(true, _):
                        ended = true
                        return .deleted
                    case .object(false, let properties):
                        guard let object = frozen.accessor(sequence.link) as? T else { continue }
                        return .change(object, properties.map { p in
                            PropertyChange(name: sequence.names[p.property], oldValue: p.old.flatMap { frozen.boxed($0) },
                                newValue: p.new.flatMap { frozen.boxed($0) })
                        })
                    case .error(let error):
                        ended = true
                        return .error(error)
                    case .initial, .collection, .map: continue
                    }
                }
                guard await signals.next() != nil else { break }
            }
            sequence.pulled.stop()
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(sequence: self, signals: pulled.signals.makeAsyncIterator())
    }
}

extension ThreadConfined where Self: Object {
    /// The object's changes as an asynchronous sequence of frozen objects
    /// (see ``ObjectChanges``), filtered by `keyPaths` as `observe` does.
    ///
    /// Call it on the object's thread; iterate it anywhere.
    public func changes(keyPaths: [String]? = nil) -> ObjectChanges<Self> {
        ObjectChanges(object: self, keyPaths: keyPaths)
    }
}
