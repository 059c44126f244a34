/// What a change handler of ``ExposureManaging/observe(_:options:changeHandler:)`` is given, as Foundation's
/// `NSKeyValueObservingOptions`.
public struct ENKeyValueObservingOptions: OptionSet, Hashable, Sendable {
    /// The raw bits (Foundation's values).
    public let rawValue: UInt
    /// Options from raw bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The change carries the new value.
    public static let new = ENKeyValueObservingOptions(rawValue: 0x01)
    /// The change carries the old value.
    public static let old = ENKeyValueObservingOptions(rawValue: 0x02)
    /// The handler is called once at once, before `observe` returns, with the current value.
    public static let initial = ENKeyValueObservingOptions(rawValue: 0x04)
    /// The handler is called before each change too, with `isPrior` set.
    public static let prior = ENKeyValueObservingOptions(rawValue: 0x08)
}

#if !canImport(ObjectiveC)
    /// Foundation's name, where Foundation has no key-value observing (Linux, Windows).
    public typealias NSKeyValueObservingOptions = ENKeyValueObservingOptions
#endif
