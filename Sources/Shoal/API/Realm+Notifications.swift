extension Realm {
    /// What a ``Realm/observe(_:)`` block is told.
    public enum Notification: String, Sendable {
        /// The Realm moved to a new version: its own commit, or others' at
        /// ``Realm/refresh()`` or ``Realm/beginWrite()``.
        case didChange
        /// Another thread committed while ``Realm/autorefresh`` is off: the
        /// Realm stays at its version until ``Realm/refresh()``. Sent on the
        /// Realm's queue or actor (the main queue for the main thread's
        /// Realm), where it would have refreshed.
        case refreshRequired
    }

    /// Registers a block called whenever this Realm moves to a new version.
    ///
    /// ```swift
    /// let token = realm.observe { notification, realm in
    ///     print("now at a new version")
    /// }
    /// ```
    ///
    /// It runs synchronously at the end of this Realm's own commits, and at
    /// `refresh()`, `beginWrite()` or an automatic refresh (see
    /// ``autorefresh``) for commits made elsewhere. A write
    /// transaction that changes nothing commits no version and calls nobody.
    ///
    /// - Note: Differs from Realm: an empty write notifies nobody.
    public func observe(_ block: @escaping (Notification, Realm) -> Void) -> NotificationToken {
        instance.checkObservable()
        let id = instance.coordinator.ensureTracker().makeID()
        instance.realmObservers[id] = block
        let box = InstanceBox(instance)
        // Invalidate (or release) the token on the Realm's thread, as in Realm.
        return NotificationToken(storeIdentifier: instance.coordinator.identifier, subscriptionID: nil) {
            guard let instance = box.value else { return }
            instance.realmObservers[id] = nil
            instance.realmObservers.releaseUnusedCapacity()
        }
    }

    /// Runs `block` in a write transaction whose commit the given tokens are
    /// not told about: for changes a UI has already shown. Other tokens,
    /// including other tokens on the same collection, are told as usual.
    ///
    /// ```swift
    /// try realm.write(withoutNotifying: [token]) { list.append(item) }
    /// ```
    ///
    /// - Throws: as ``write(_:)``. Stops when a token belongs to another
    ///   Realm, with Realm's message.
    /// - Note: Differs from Realm: when a token still has undelivered changes
    ///   from an earlier commit at this commit (possible when another thread
    ///   commits between `beginWrite()` delivering and taking the write lock),
    ///   the skipped commit is reported together with them.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken], _ block: () throws -> Result) throws -> Result {
        try instance.beginWrite()
        skip(tokens)
        let result: Result
        do {
            result = try block()
        } catch {
            if instance.transaction != nil { instance.cancelWrite() }
            throw error
        }
        if instance.transaction != nil { try instance.commitWrite() }
        return result
    }

    /// Commits the open write transaction without telling the given tokens.
    /// - Throws: as ``commitWrite()``.
    public func commitWrite(withoutNotifying tokens: [NotificationToken]) throws {
        skip(tokens)
        try instance.commitWrite()
    }

    private func skip(_ tokens: [NotificationToken]) {
        guard instance.transaction != nil else {
            shoalPrecondition(ShoalError(.notInWriteTransaction,
                "Suppressing the notification from a write transaction must be done from inside the write transaction."))
        }
        for token in tokens {
            guard token.storeIdentifier == instance.coordinator.identifier else {
                shoalPrecondition(ShoalError(.unsupported, "Incorrect Realm: only notifications for the Realm being modified can be skipped."))
            }
            if let id = token.subscriptionID { instance.skipping.insert(id) }
        }
    }
}
