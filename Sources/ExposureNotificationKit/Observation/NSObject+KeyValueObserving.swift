public import Foundation

#if !canImport(ObjectiveC)
    /// Foundation's `observe(_:options:changeHandler:)` for an app's own `NSObject` subclasses where Foundation has
    /// no key-value observing (Linux, Windows), for key paths that reach a manager's state: an app object that
    /// holds a manager observes `\.manager.exposureNotificationStatus` as it does on iOS.
    public protocol ENKeyValueObservingObject: AnyObject {}

    extension NSObject: ENKeyValueObservingObject {}

    extension ENKeyValueObservingObject {
        /// Calls `changeHandler` each time the value at `keyPath` changes, reading it again whenever the status,
        /// enabled flag or authorization of any ``ENManager`` changes (key-value observing of a key path through a
        /// manager, such as `\.manager.exposureNotificationStatus`); see
        /// ``ExposureManaging/observe(_:options:changeHandler:)`` for the options and when the handler runs. A key
        /// path whose value does not follow a manager's state is never reported.
        public func observe<Value: Equatable & Sendable>(
            _ keyPath: KeyPath<Self, Value>, options: ENKeyValueObservingOptions = [],
            changeHandler: @escaping (Self, ENKeyValueObservedChange<Value>) -> Void
        ) -> ENKeyValueObservation {
            ENKeyValueObservation.observing(
                self, keyPath, options: options, changes: ENStatusChanges.subscribe(), handler: changeHandler)
        }
    }
#endif
