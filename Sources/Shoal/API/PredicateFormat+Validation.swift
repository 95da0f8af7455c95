public import Foundation

extension PredicateFormat {
    /// A predicate translated from a Foundation `#Predicate`.
    ///
    /// ```swift
    /// let predicate = try PredicateFormat(#Predicate<Dog> { $0.age > 3 && $0.name.starts(with: "R") })
    /// print(predicate)   // age > 3 AND name BEGINSWITH "R"
    /// ```
    ///
    /// - Throws: ``ShoalError`` with code `.invalidQuery` naming the first
    ///   expression type Shoal cannot translate (supported: `==`, `!=`, `<`,
    ///   `<=`, `>`, `>=`, `&&`, `||`, `!`, key paths through `@Persisted`
    ///   properties and optional links, `starts(with:)`, `contains` on strings,
    ///   collections and constant arrays, `contains(where:)`, `allSatisfy`,
    ///   ranges, and `count` of a `List`, `MutableSet` or `LinkingObjects`).
    public init<T>(_ predicate: Predicate<T>) throws {
        let tree = try PredicateTranslator.translate(predicate)
        self.init(tree: tree)
    }

    /// Checks that the predicate fits a class: its key paths exist and its
    /// constants have the right types.
    ///
    /// ```swift
    /// try PredicateFormat("owner.nmae == 'Ann'").validate(for: Dog.self)
    /// // throws: Invalid predicate 'owner.nmae == 'Ann'': unknown property 'nmae' on class 'Person' at position 6 (found 'nmae')
    /// ```
    ///
    /// - Throws: ``ShoalError`` with code `.invalidKeyPath` for an unknown
    ///   property (naming the class, the property and its position), or
    ///   `.invalidQuery` for a type mismatch or an operator that does not apply.
    public func validate<T: Object>(for type: T.Type) throws {
        let schema = Schema(ClassRegistry.reachableSchemas(from: type))
        _ = try QueryBinder.bind(tree, schema: schema, root: .table(schema.tableByName[Object.className(of: type)]!), format: format)
    }
}

extension RealmCollection {
    /// The elements matching a Foundation `#Predicate`.
    ///
    /// ```swift
    /// let dogs = realm.objects(Dog.self).filter(#Predicate { $0.age > 3 && $0.name.starts(with: "R") })
    /// ```
    ///
    /// Stops with a message naming the expression when the predicate uses
    /// something Shoal cannot translate; `PredicateFormat(_:)` with a `Predicate`
    /// reports that as an error instead.
    public func filter(_ predicate: Predicate<Element>) -> Results<Element> {
        do { return try filtered(try PredicateTranslator.translate(predicate)) } catch { shoalPrecondition(error) }
    }

    /// The index of the first element matching a Foundation `#Predicate`, in current order.
    ///
    /// ```swift
    /// let i = realm.objects(Dog.self).index(matching: #Predicate { $0.age > 3 })
    /// ```
    public func index(matching predicate: Predicate<Element>) -> Int? {
        do { return firstIndex(try PredicateTranslator.translate(predicate), format: nil) } catch { shoalPrecondition(error) }
    }
}

extension Object: PredicateArgumentConvertible {
    /// A managed object is passed to a predicate as a link to it. An
    /// unmanaged object, like a deleted one, is a link to no object: as in
    /// Realm, `link == object` matches nothing and `link != object` matches
    /// everything, a `nil` link included (Realm's RLMQueryUtil: "Unmanaged or
    /// deleted objects are not equal to any managed objects").
    var predicateArgument: PredicateArgument {
        guard let ref else { return .scalar(.link(Link(table: TableKey(UInt32.max), key: ObjectKey(-1)))) }
        return .scalar(.link(ref.link))
    }
}

extension AnyRealmValue: PredicateArgumentConvertible {
    /// An `AnyRealmValue` is passed as the value it holds, as Realm bridges
    /// it: `.int(3)` is `3`, `.none` is `nil`, `.object(o)` is `o`.
    var predicateArgument: PredicateArgument {
        if case .object(let object) = self { return object.predicateArgument }
        return .scalar(toValue(nil))
    }
}

extension PersistableValue {
    /// The value as a typed query's constant: what it stores, except that an
    /// object or an `AnyRealmValue` holding one is the link a format
    /// argument would be (a link to no object when it is unmanaged).
    var queryValue: Value {
        if let convertible = self as? any PredicateArgumentConvertible, case .scalar(let value) = convertible.predicateArgument {
            return value
        }
        return toValue(nil)
    }
}
