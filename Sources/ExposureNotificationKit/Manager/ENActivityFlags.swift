/// Why the app was launched for background activity, as Apple's `ENActivityFlags`.
public struct ENActivityFlags: OptionSet, Hashable, Sendable {
    /// The raw bits, Apple's values.
    public let rawValue: UInt32

    /// Creates flags from raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Reserved by Apple.
    public static let reserved1 = ENActivityFlags(rawValue: 1 << 0)
    /// Reserved by Apple.
    public static let reserved2 = ENActivityFlags(rawValue: 1 << 1)
    /// The app was launched to run its periodic work, such as detecting exposures.
    public static let periodicRun = ENActivityFlags(rawValue: 1 << 2)
    /// The user tapped the notification that pre-authorized keys are about to be released.
    public static let preAuthorizedKeyReleaseNotificationTapped = ENActivityFlags(rawValue: 1 << 3)
}
