public import ENCore
public import Foundation

/// How an ``ENDeviceStore`` keeps its data: retention, clock and optional encryption at rest.
public struct ENStoreConfiguration: Sendable {
    /// How long own keys, sightings, cached key files, processed key files, rate-limit entries and
    /// detection results are kept: 14 days by default, as on Apple's and Google's systems.
    public var retentionPeriod: TimeInterval

    /// The clock that dates records and decides their expiry. Inject a fixed or virtual clock in tests.
    public var now: @Sendable () -> Date

    /// The cipher that seals own keys, sightings and cached key files, or `nil` (the default) to store them in
    /// the clear.
    ///
    /// Whether a store is encrypted is decided when its file is created; opening it later with a
    /// different choice fails (see ``ENDeviceStore/init(path:configuration:)``).
    public var cipher: (any ENAuthenticatedCipher)?

    /// Whether opening the store deletes expired records right away (the default).
    public var deletesExpiredRecordsOnOpen: Bool

    /// Fourteen days, in seconds.
    public static let defaultRetentionPeriod: TimeInterval = 14 * 24 * 60 * 60

    /// Creates a configuration.
    public init(
        retentionPeriod: TimeInterval = ENStoreConfiguration.defaultRetentionPeriod,
        now: @escaping @Sendable () -> Date = { Date() },
        cipher: (any ENAuthenticatedCipher)? = nil,
        deletesExpiredRecordsOnOpen: Bool = true
    ) {
        self.retentionPeriod = retentionPeriod
        self.now = now
        self.cipher = cipher
        self.deletesExpiredRecordsOnOpen = deletesExpiredRecordsOnOpen
    }
}
