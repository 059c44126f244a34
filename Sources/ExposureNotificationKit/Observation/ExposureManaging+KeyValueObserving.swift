/// Apple's way of watching the status: key-value observing (`manager.observe(\.exposureNotificationStatus)`), built
/// on ``ExposureManaging/statusUpdates()`` so that it runs on every platform.
extension ExposureManaging {
    /// Calls `changeHandler` each time the value at `keyPath` changes, as Foundation's
    /// `observe(_:options:changeHandler:)` on Apple's `ENManager`:
    ///
    /// ```swift
    /// observation = manager.observe(\.exposureNotificationStatus, options: .new) { manager, change in
    ///     DispatchQueue.main.async { self.show(change.newValue) }
    /// }
    /// ```
    ///
    /// The value is read again at each of ``statusUpdates()``'s elements (a change of the status, the enabled
    /// flag or the authorization), and the handler is called when it differs from the last value reported:
    /// `\.exposureNotificationStatus`, `\.exposureNotificationEnabled` and `\.authorizationStatus` are observable.
    /// With ``ENKeyValueObservingOptions/initial`` the handler is called once before this returns. Other calls
    /// come from a task of the observation's own, one at a time and in order, on no particular thread (as KVO calls
    /// on the thread that changed the value): hop to the main queue for UI work.
    ///
    /// The observation lasts until it is invalidated or released, or the manager is invalidated; it does not keep
    /// the manager alive.
    public func observe<Value: Equatable & Sendable>(
        _ keyPath: KeyPath<Self, Value>, options: ENKeyValueObservingOptions = [],
        changeHandler: @escaping (Self, ENKeyValueObservedChange<Value>) -> Void
    ) -> ENKeyValueObservation {
        ENKeyValueObservation.observing(
            self, keyPath, options: options, changes: statusUpdates(), handler: changeHandler)
    }
}
