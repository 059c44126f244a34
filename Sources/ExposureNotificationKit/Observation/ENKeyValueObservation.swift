internal import ENCore
internal import Foundation

/// What ``ExposureManaging/observe(_:options:changeHandler:)`` returns, as Foundation's `NSKeyValueObservation`:
/// the observation lasts until ``invalidate()`` is called or the observation is released.
public final class ENKeyValueObservation: Sendable {
    private let cancel: Locked<(@Sendable () -> Void)?>

    private init(cancel: @escaping @Sendable () -> Void) {
        self.cancel = Locked(cancel)
    }

    /// Ends the observation: the change handler is not called for changes after this returns. Calling it again
    /// does nothing.
    public func invalidate() {
        let cancel = self.cancel.withLock { cancel in
            defer { cancel = nil }
            return cancel
        }
        cancel?()
    }

    deinit { invalidate() }

    /// Observes `keyPath` of `object`: with ``ENKeyValueObservingOptions/initial`` the handler is called at once;
    /// then the value is read again at each element of `changes` and the handler called when it differs from the
    /// last value reported. Holds `object` weakly; ends when `changes` ends or `object` is released.
    static func observing<Object: AnyObject, Value: Equatable & Sendable, Change: Sendable>(
        _ object: Object, _ keyPath: KeyPath<Object, Value>, options: ENKeyValueObservingOptions,
        changes: AsyncStream<Change>, handler: @escaping (Object, ENKeyValueObservedChange<Value>) -> Void
    ) -> ENKeyValueObservation {
        let initial = object[keyPath: keyPath]
        if options.contains(.initial) {
            handler(object, ENKeyValueObservedChange(newValue: options.contains(.new) ? initial : nil, oldValue: nil))
        }
        // The object, the handler (an app's closure, often Swift 5 code) and the key path need not be Sendable;
        // after this point the task is their only user.
        let context = Unchecked((object: WeakReference(object), keyPath: keyPath, handler: handler))
        let task = Task {
            var last = initial
            for await _ in changes {
                guard let object = context.value.object.object else { return }
                let value = object[keyPath: context.value.keyPath]
                guard value != last, !Task.isCancelled else { continue }
                let old = options.contains(.old) ? last : nil
                if options.contains(.prior) {
                    context.value.handler(object, ENKeyValueObservedChange(newValue: nil, oldValue: old, isPrior: true))
                }
                context.value.handler(
                    object, ENKeyValueObservedChange(newValue: options.contains(.new) ? value : nil, oldValue: old))
                last = value
            }
        }
        return ENKeyValueObservation { task.cancel() }
    }

    private struct WeakReference<Object: AnyObject> {
        weak var object: Object?
        init(_ object: Object) { self.object = object }
    }
}

#if !canImport(ObjectiveC)
    /// Foundation's name, where Foundation has no key-value observing (Linux, Windows): app code declaring
    /// `NSKeyValueObservation?` compiles unchanged.
    public typealias NSKeyValueObservation = ENKeyValueObservation
#endif
