/// Turns a Swift key path over `@Persisted` properties (`\Dog.owner?.name`)
/// into the property names it reads (`owner.name`).
///
/// Swift key paths carry no names on Linux, so Shoal does what Realm does:
/// it reads the key path on a fresh, unmanaged *tracer* object. While a
/// tracer is active, `@Persisted` getters of the objects it traces record
/// their property's name instead of reading a value, and a link property
/// returns another traced object, so the chain continues.
final class KeyPathTracer: @unchecked Sendable {
    // Safe because: a tracer is used only on the thread that created it,
    // inside `withValue` on that thread.
    @TaskLocal static var current: KeyPathTracer?

    private(set) var names: [String] = []
    private var traced: [ObjectIdentifier: Object] = [:]

    func isTracing(_ object: Object) -> Bool { traced[ObjectIdentifier(object)] != nil }

    private func trace<O: Object>(_ type: O.Type) -> O {
        let object = type.init(_shoalMetatype: ())
        traced[ObjectIdentifier(object)] = object
        return object
    }

    /// Records stored property `index` of `type` and returns a stand-in
    /// value: a traced object for a link, the type's default otherwise.
    func record<T: PersistableValue>(_ type: Object.Type, _ index: Int) -> T {
        names.append(ClassRegistry.info(for: type).schema.properties[index].name)
        let info = T.persistedType
        if info.collection == .none, info.type == .object, let objectType = info.objectType,
            let link = trace(objectType) as? T
        {
            return link
        }
        return T.persistedDefault()
    }

    /// The property names `keyPath` reads from `Root`, joined with dots.
    ///
    /// Stops with a message naming the key path when it reads no
    /// `@Persisted` property.
    static func name<Root: Object>(of keyPath: PartialKeyPath<Root>) -> String {
        do { return try names(of: keyPath).joined(separator: ".") } catch { shoalPrecondition(error) }
    }

    /// The property names `keyPath` reads from `Root`.
    ///
    /// - Throws: `.invalidKeyPath` when the key path reads no `@Persisted` property.
    static func names<Root: Object>(of keyPath: PartialKeyPath<Root>) throws(ShoalError) -> [String] {
        try names(of: keyPath, on: Root.self)
    }

    /// The property names `keyPath` reads from an object of `type`.
    ///
    /// - Throws: `.invalidKeyPath` when the key path reads no `@Persisted` property.
    static func names(of keyPath: AnyKeyPath, on type: Object.Type) throws(ShoalError) -> [String] {
        let names = names(on: type) { _ = $0[keyPath: keyPath] }
        guard !names.isEmpty else {
            throw ShoalError(.invalidKeyPath,
                "Key path \(keyPath) does not read a @Persisted property of '\(Object.className(of: type))'.",
                context: ["class": Object.className(of: type)])
        }
        return names
    }

    /// The property names `read` reads from the traced object of `type` it
    /// is given (empty when it reads none). What `read` makes of the traced
    /// object before reading (a projection of it) is traced too.
    static func names(on type: Object.Type, reading read: (Object) -> Void) -> [String] {
        let tracer = KeyPathTracer()
        let root = tracer.trace(type)
        $current.withValue(tracer) { read(root) }
        return tracer.names
    }
}
