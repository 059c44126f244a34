internal import ENCore
public import ENExportFormat
package import ENMatching
package import ENStore
public import Foundation

/// Everything Apple's framework gets from the operating system, given to an ``ENManager`` instead: the user's
/// answers, the radio, the clock, where the framework keeps its state, the signing keys the app trusts, the
/// region, the API version, the entitlements, where user notifications go, and what runs background work.
///
/// An app sets ``ENEnvironment/default`` once at start-up, so that `ENManager()` (as Apple's sample writes it)
/// uses it; tests and simulations give each manager an explicit one with ``ENManager/init(environment:)``.
///
/// ```swift
/// import ExposureNotificationKit
///
/// ENEnvironment.default = ENEnvironment(
///     consent: MyPrompts(), storeLocation: .directory(appSupport), storeKeyProvider: KeychainStoreKey(),
///     trustedKeys: [try ENExportVerificationKey(keyID: "310", keyVersion: "v1", pemRepresentation: pem)],
///     apiVersion: .version2)
/// let manager = ENManager()
/// ```
public struct ENEnvironment: Sendable {
    /// Where the framework keeps its state.
    public enum StoreLocation: Hashable, Sendable {
        /// In memory: the state lasts as long as the manager.
        case inMemory
        /// In a SQLite file in this directory (created when needed): the state survives restarts, and managers
        /// on the same directory share it.
        case directory(URL)
    }

    /// The user's answers to the framework's prompts.
    public var consent: any ENConsentProvider
    /// The Bluetooth radio.
    public var radio: any ENRadio
    /// The clock.
    public var clock: any ENClock
    /// Where the framework keeps its state.
    public var storeLocation: StoreLocation
    /// The key that encrypts the framework's store at rest (AES-GCM), as iOS keeps it in the keychain; `nil` (the
    /// default) stores the state unencrypted, protected by the file modes only (directory 0700, files 0600).
    public var storeKeyProvider: (any ENStoreKeyProvider)?
    /// The keys whose signatures make a key file trusted, by key id and key version (iOS's allow-list).
    public var trustedKeys: [ENExportVerificationKey]
    /// Which signatures of a key file decide whether it is trusted: iOS's rule, the first signature alone
    /// (`.firstSignature`, the default), or Android's, any signature by a trusted key (`.anyTrustedSignature`).
    ///
    /// While a health authority rotates its signing key, its files carry the new key's signature first and the old
    /// key's second. With iOS's rule a phone needs the new key in ``trustedKeys`` to verify them; with Android's,
    /// a phone that still trusts only the old key verifies them too.
    public var signatureRule: ENExportVerifier.Rule
    /// The app's region (an ISO 3166 country code or a server's region string), as the health authority's
    /// configuration gives it.
    public var region: String?
    /// The API version the app declares (Apple reads `ENAPIVersion` from Info.plist).
    public var apiVersion: ENAPIVersion
    /// What the app is entitled to.
    public var entitlements: ENEntitlements
    /// Where the framework's user notifications go.
    public var notifications: any ENNotificationSink
    /// What launches the app for periodic background work.
    public var scheduler: any ENScheduler
    /// Whether the user traveled in the exposure period, or `nil` where the platform cannot tell (then
    /// `getUserTraveled` fails with `ENError.travelStatusNotAvailable`, as Apple's does).
    public var travelStatus: (@Sendable () async -> Bool)?
    /// The framework's limits; Apple's values by default.
    public var limits: ENLimits
    /// With ``StoreLocation/inMemory``: a snapshot file (``ENManager/writeStoreSnapshot(to:)``) whose state the
    /// in-memory store starts from; `nil` (the default) starts empty. For simulations of many phones that resume.
    package var inMemorySnapshot: URL?
    /// With ``StoreLocation/inMemory``: where the store keeps the `export.bin` of the key files it caches, one copy
    /// shared with every other manager given the same value, instead of its own; `nil` (the default) keeps its own.
    /// For simulations of many phones, which all cache the same files. Not with ``storeKeyProvider``.
    package var sharedKeyFiles: ENSharedKeyFiles?
    /// Where detection finds the identifiers of each key file's keys, derived once for every manager given the same
    /// value (``ENSharedIdentifiers``), instead of deriving them for its own sightings at every detection; `nil`
    /// (the default) derives its own. The matches are the same. For simulations of many phones, which all match
    /// the same files; a cached file whose identifiers are kept is not read from the store.
    package var sharedIdentifiers: ENSharedIdentifiers?
    /// Where detection finds each downloaded key file's archive already read (`ENSharedArchives`, by the SHA-256 of
    /// the zip's bytes), for every manager given the same value, instead of unzipping it again; `nil` (the default)
    /// unzips its own. For simulations of many phones, which all download the same files.
    package var sharedArchives: ENSharedArchives?

    /// Creates an environment; every part has a default that runs without a device (a user who declines every
    /// prompt, a silent radio, the system clock, state in memory, no trusted keys, API version 2, the Exposure
    /// Notification entitlement only, iOS's signature rule).
    public init(
        consent: any ENConsentProvider = DecliningConsent(),
        radio: any ENRadio = SilentRadio(),
        clock: any ENClock = ENSystemClock(),
        storeLocation: StoreLocation = .inMemory,
        storeKeyProvider: (any ENStoreKeyProvider)? = nil,
        trustedKeys: [ENExportVerificationKey] = [],
        region: String? = nil,
        apiVersion: ENAPIVersion = .version2,
        entitlements: ENEntitlements = .exposureNotification,
        notifications: any ENNotificationSink = ENDiscardingNotificationSink(),
        scheduler: any ENScheduler = ENDispatchScheduler(),
        travelStatus: (@Sendable () async -> Bool)? = nil,
        limits: ENLimits = ENLimits(),
        signatureRule: ENExportVerifier.Rule = .firstSignature
    ) {
        self.consent = consent
        self.radio = radio
        self.clock = clock
        self.storeLocation = storeLocation
        self.storeKeyProvider = storeKeyProvider
        self.trustedKeys = trustedKeys
        self.region = region
        self.apiVersion = apiVersion
        self.entitlements = entitlements
        self.notifications = notifications
        self.scheduler = scheduler
        self.travelStatus = travelStatus
        self.limits = limits
        self.signatureRule = signatureRule
    }

    private static let shared = Locked(ENEnvironment())

    /// The process-wide environment that `ENManager()` uses: set it once at start-up, before the first manager.
    ///
    /// A manager reads it when it is created; changing it later does not change existing managers.
    public static var `default`: ENEnvironment {
        get { shared.withLock { $0 } }
        set { shared.withLock { $0 = newValue } }
    }
}

/// What an app is entitled to (Apple grants these through the app's entitlements file).
public struct ENEntitlements: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public let rawValue: UInt32
    /// Creates entitlements from raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `com.apple.developer.exposure-notification`: the framework may be used at all.
    public static let exposureNotification = ENEntitlements(rawValue: 1 << 0)
    /// The test entitlement: `getTestDiagnosisKeys` may be called (never granted to App Store apps).
    public static let testDiagnosisKeys = ENEntitlements(rawValue: 1 << 1)
}

/// The framework's limits, Apple's values by default.
public struct ENLimits: Hashable, Sendable {
    /// Calls of `detectExposures` in any 24 hours with API version 1: 15.
    public var detectionsPerDayVersion1: Int
    /// Calls of `detectExposures` in any 24 hours with API version 2: 6.
    public var detectionsPerDayVersion2: Int
    /// How long a pre-authorization of key release lasts: 5 days.
    public var preAuthorizationValidity: TimeInterval
    /// How far back keys, sightings and cached diagnosis keys are kept and considered: 14 days.
    public var retention: TimeInterval
    /// How often the manager's periodic runs come (retention; while enabled, the day's key and the app's
    /// `activityHandler`): every 4 hours by default.
    /// Keep it at most 24 hours: apps rely on a launch at least once a day, as iOS 12.5 gives them.
    public var periodicRunInterval: TimeInterval
    /// The most threads one detection matches keys on; `nil` (the default) uses every active core. A server
    /// running many simulated devices, or an app that must leave cores free, sets it lower.
    public var maximumDetectionThreads: Int?
    /// The most bytes of verified `export.bin` one detection keeps in memory between verifying the files and
    /// matching their keys: 64 MiB. Verification, which is far faster than matching, waits when it is spent until
    /// matching has found a file's keys (the file matching reads next never waits, whatever its size), so a
    /// detection holds about this much, plus one file per thread, those still queued for writing into the store,
    /// and the files whose keys are in the two batches of keys being matched (the matching threads decode them
    /// from the file's bytes), however many files it is given.
    public var detectionMemoryBudget: Int

    /// Creates limits; the defaults are Apple's (the memory budget is this package's).
    public init(
        detectionsPerDayVersion1: Int = 15, detectionsPerDayVersion2: Int = 6,
        preAuthorizationValidity: TimeInterval = 5 * 86_400, retention: TimeInterval = 14 * 86_400,
        periodicRunInterval: TimeInterval = 4 * 3_600, maximumDetectionThreads: Int? = nil,
        detectionMemoryBudget: Int = 64 << 20
    ) {
        self.maximumDetectionThreads = maximumDetectionThreads
        self.detectionMemoryBudget = detectionMemoryBudget
        self.detectionsPerDayVersion1 = detectionsPerDayVersion1
        self.detectionsPerDayVersion2 = detectionsPerDayVersion2
        self.preAuthorizationValidity = preAuthorizationValidity
        self.retention = retention
        self.periodicRunInterval = periodicRunInterval
    }
}
