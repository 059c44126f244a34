public import ENCore
public import ENRiskV1
public import ENRiskV2
public import Foundation

/// What an app's exposure code uses: the operations and state of Apple's `ENManager`, as a protocol, so that the
/// same app code runs on ``ENManager`` (this package's implementation), on a test double
/// (`ExposureNotificationKitTesting`), or on anything an app writes itself.
///
/// The protocol holds the primitives: the state, and each operation once, in its `async` form. The
/// completion-handler forms that Apple's API has (`activate(completionHandler:)`, ...) are written once, in an
/// extension, on top of the primitives and ``deliver(_:to:)``: every conforming type has them, delivered on
/// ``dispatchQueue``.
///
/// Errors are `ENError`s with Apple's codes: `ENError.Code.apiMisuse` before ``activate()``,
/// `ENError.Code.invalidated` after ``invalidate()``.
public protocol ExposureManaging: AnyObject, Sendable {
    /// The queue completion handlers and the other handlers are called on; the main queue by default.
    var dispatchQueue: DispatchQueue { get set }
    /// The status of Exposure Notification; ``ENStatus/unknown`` until ``activate()`` has completed.
    var exposureNotificationStatus: ENStatus { get }
    /// Whether Exposure Notification is enabled; `false` until ``activate()`` has completed.
    var exposureNotificationEnabled: Bool { get }
    /// Whether the user authorized the app; readable before ``activate()``.
    var authorizationStatus: ENAuthorizationStatus { get }
    /// Called once, on ``dispatchQueue``, when ``invalidate()`` has completed; cleared before it is called.
    var invalidationHandler: (() -> Void)? { get set }
    /// Called on ``dispatchQueue`` when the app is launched for background work (``ENActivityFlags/periodicRun``).
    var activityHandler: ENActivityHandler? { get set }
    /// Called on ``dispatchQueue`` with the keys a pre-authorization released.
    var diagnosisKeysAvailableHandler: ENDiagnosisKeysAvailableHandler? { get set }

    /// The status, enabled flag and authorization as a sequence: the current values first, then each change,
    /// until the manager is invalidated.
    func statusUpdates() -> AsyncStream<ENStatusUpdate>

    /// Activates the manager; the other operations fail with `ENError.Code.apiMisuse` before it completes.
    /// A second call fails with `ENError.Code.apiMisuse`.
    func activate() async throws(ENError)
    /// Ends the manager: pending operations fail with `ENError.Code.invalidated`, then ``invalidationHandler``
    /// is called once; no handler is called after it.
    func invalidate()
    /// Enables or disables Exposure Notification; enabling asks the user for authorization the first time.
    func setExposureNotificationEnabled(_ enabled: Bool) async throws(ENError)
    /// The keys of the past 14 days, after asking the user to release them.
    func getDiagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey]
    /// The keys of the past 14 days and the current key; needs the test entitlement.
    func getTestDiagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey]
    /// Asks the user to pre-authorize one release of the keys within 5 days.
    func preAuthorizeDiagnosisKeys() async throws(ENError)
    /// Releases the keys once under the pre-authorization, through ``diagnosisKeysAvailableHandler``.
    func requestPreAuthorizedDiagnosisKeys() async throws(ENError)
    /// Whether the user traveled in the exposure period.
    func getUserTraveled() async throws(ENError) -> Bool

    /// Detects exposures in the key files at `diagnosisKeyURLs` (zips, or `.bin` and `.sig` pairs with the same
    /// base name) together with the keys cached from earlier detections of the last 14 days. An empty list is
    /// a detection over the cached keys. Cancelling the calling task ends it with `ENError.Code.invalidated`
    /// and nothing stored.
    func detectExposures(
        configuration: ENExposureConfiguration, diagnosisKeyURLs: [URL]
    ) async throws(ENError) -> ENExposureDetectionSummary
    /// Detects exposures in the keys cached from earlier detections of the last 14 days (API version 2).
    func detectExposures(configuration: ENExposureConfiguration) async throws(ENError) -> ENExposureDetectionSummary
    /// The exposure windows of the detection that returned `summary` (API version 2).
    func getExposureWindows(summary: ENExposureDetectionSummary) async throws(ENError) -> [ENExposureWindow]
    /// The exposures of the detection that returned `summary` (API version 1); `userExplanation` is shown to
    /// the user in a notification.
    func getExposureInfo(
        summary: ENExposureDetectionSummary, userExplanation: String
    ) async throws(ENError) -> [ENExposureInfo]

    /// Runs `operation` and hands its result to `completion` on ``dispatchQueue``, exactly once: the operation's
    /// result, or `ENError.Code.invalidated` when ``invalidate()`` comes first. Nothing is delivered after the
    /// invalidation handler. The completion-handler forms of every operation are built on this.
    func deliver<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws(ENError) -> Value,
        to completion: @escaping (Result<Value, ENError>) -> Void)
}

/// A snapshot of an ``ExposureManaging``'s observable state.
public struct ENStatusUpdate: Hashable, Sendable {
    /// The status.
    public var status: ENStatus
    /// Whether Exposure Notification is enabled.
    public var enabled: Bool
    /// The app's authorization.
    public var authorizationStatus: ENAuthorizationStatus

    /// Creates a snapshot.
    public init(status: ENStatus, enabled: Bool, authorizationStatus: ENAuthorizationStatus) {
        self.status = status
        self.enabled = enabled
        self.authorizationStatus = authorizationStatus
    }
}
