/// One change that ``ExposureManaging/observe(_:options:changeHandler:)`` reports, as Foundation's
/// `NSKeyValueObservedChange`.
public struct ENKeyValueObservedChange<Value> {
    /// What kind of change: always `setting` (the observed properties are values, not collections).
    public enum Kind: UInt, Hashable, Sendable {
        /// The value was set.
        case setting = 1
        /// An element was inserted (Foundation's kind; never reported here).
        case insertion = 2
        /// An element was removed (Foundation's kind; never reported here).
        case removal = 3
        /// An element was replaced (Foundation's kind; never reported here).
        case replacement = 4
    }

    /// The kind of change: ``Kind/setting``.
    public let kind: Kind
    /// The value after the change, with ``ENKeyValueObservingOptions/new``.
    public let newValue: Value?
    /// The value before the change, with ``ENKeyValueObservingOptions/old``.
    public let oldValue: Value?
    /// Whether this call comes before the change (``ENKeyValueObservingOptions/prior``).
    public let isPrior: Bool

    /// A change.
    public init(kind: Kind = .setting, newValue: Value?, oldValue: Value?, isPrior: Bool = false) {
        self.kind = kind
        self.newValue = newValue
        self.oldValue = oldValue
        self.isPrior = isPrior
    }
}

extension ENKeyValueObservedChange: Sendable where Value: Sendable {}

#if !canImport(ObjectiveC)
    /// Foundation's name, where Foundation has no key-value observing (Linux, Windows).
    public typealias NSKeyValueObservedChange = ENKeyValueObservedChange
#endif
