public import ENCore
internal import ENCrypto
public import ENRiskV1
public import ENRiskV2
internal import ENStore
public import Foundation

/// Apple's `ENManager`, on any platform: authorization and enabling, key rolling and broadcasting through a
/// radio, sightings, diagnosis-key release (with consent, and pre-authorized), and the framework's persistent
/// state, with Apple's names, semantics and error codes.
///
/// What the operating system does for Apple's framework comes from an ``ENEnvironment``: `ENManager()` uses
/// ``ENEnvironment/default``, which an app sets once at start-up; tests pass one to ``init(environment:)``.
///
/// ```swift
/// let manager = ENManager()
/// manager.activate { error in
///     guard error == nil else { return }
///     manager.setExposureNotificationEnabled(true) { error in ... }
/// }
/// ```
///
/// Every operation exists in Apple's completion-handler form (handlers run on ``dispatchQueue``) and as
/// `async throws`. The manager is `Sendable`: any thread may call it (its state is behind locks, which is why a
/// subclass is `@unchecked Sendable`). It is an `open class`, as Apple's: apps' test doubles subclass it and
/// override its operations and properties.
///
/// ## Semantics
/// - Before ``activate()`` completes, operations fail with `ENError.apiMisuse`, ``exposureNotificationStatus``
///   is ``ENStatus/unknown`` and ``exposureNotificationEnabled`` is `false`; a second `activate` fails with
///   `apiMisuse`. ``authorizationStatus-swift.property`` is readable at any time.
/// - ``invalidate()`` ends the manager: pending operations fail with `ENError.invalidated`, the invalidation
///   handler runs once, after them, and no handler runs after it; later calls fail with `invalidated` (their
///   completion handlers are not called, since nothing runs after the invalidation handler).
/// - The first `setExposureNotificationEnabled(true)` asks the consent provider; a refusal is
///   `ENError.notAuthorized` and is remembered (later calls fail at once, as iOS sends the user to Settings).
///   Enabling starts broadcasting and scanning; disabling stops the radio and keeps every key and sighting.
///   The enabled flag, the authorization and a pre-authorization survive a restart (with a store directory).
/// - Keys: a new temporary exposure key each UTC day (144 intervals), a new identifier and metadata each
///   interval. As on iOS the day's key exists from the moment Exposure Notification is enabled, whether or not the
///   radio asks for an advertisement; while enabled, the periodic run makes each new day's key.
///   `getDiagnosisKeys` asks for consent on every call and returns the keys of the past 14 days; with API version 2
///   it releases the current key too, with its rolling period shortened to now, and a new key starts at once, so
///   that nothing broadcast afterwards belongs to a released key. With version 1 the current key is left out
///   (Apple releases it a day later).
/// - Retention runs while the manager runs, not only when its store opens: keys, sightings, cached key files and
///   results older than 14 days are deleted from the store at activation and enabling, at every periodic run, and
///   before every release of keys and every detection.
/// - A pre-authorization releases keys once, ever: the check and the "released" mark are one store transaction,
///   which also checks that the app is still authorized and enabled; a clock earlier than the pre-authorization,
///   or past its 5 days, withdraws it.
open class ENManager: ExposureManaging, @unchecked Sendable {
    private struct State {
        var phase = Phase.created
        var status = ENStatus.unknown
        var enabled = false
        var invalidationHandler: Unchecked<(() -> Void)?> = Unchecked(nil)
        var activityHandler: Unchecked<ENActivityHandler?> = Unchecked(nil)
        var diagnosisKeysAvailableHandler: Unchecked<ENDiagnosisKeysAvailableHandler?> = Unchecked(nil)
        var observers: [UInt64: AsyncStream<ENStatusUpdate>.Continuation] = [:]
        var nextObserver: UInt64 = 0
        var periodicTask: (any ENScheduledTask)?
        var radioRunning = false
    }

    private enum Phase { case created, activating, activated, invalidated }

    /// What the operating system provides, as given when the manager was created.
    public let environment: ENEnvironment
    private let state = Locked(State())
    private let gate = ENCompletionGate()
    private let storage: FrameworkStorage
    /// Tells this manager's summaries from other managers'.
    private let instanceID = UUID()

    /// Creates a manager on ``ENEnvironment/default``, as Apple's `ENManager()` (a designated initializer, so a
    /// subclass may override it).
    public init() {
        let environment = ENEnvironment.default
        self.environment = environment
        self.storage = FrameworkStorage(environment: environment)
    }

    /// Creates a manager on `environment`.
    public init(environment: ENEnvironment) {
        self.environment = environment
        self.storage = FrameworkStorage(environment: environment)
    }

    // MARK: State

    /// The queue handlers are called on; the main queue by default.
    open var dispatchQueue: DispatchQueue {
        get { gate.queue }
        set { gate.queue = newValue }
    }

    /// The status of Exposure Notification; ``ENStatus/unknown`` until ``activate()`` has completed.
    open var exposureNotificationStatus: ENStatus { state.withLock { $0.status } }

    /// Whether Exposure Notification is enabled; `false` until ``activate()`` has completed.
    open var exposureNotificationEnabled: Bool { state.withLock { $0.enabled } }

    /// Whether the user authorized the app, read from the framework's state; readable before ``activate()``.
    /// `ENAuthorizationStatus.unknown` when the state cannot be read.
    open var authorizationStatus: ENAuthorizationStatus {
        (try? storage.managerState().authorizationStatus) ?? .unknown
    }

    /// Whether the user authorized the app, in ``ENEnvironment/default``'s store, as Apple's class property.
    public static var authorizationStatus: ENAuthorizationStatus {
        (try? FrameworkStorage(environment: .default).managerState().authorizationStatus) ?? .unknown
    }

    /// Called once, on ``dispatchQueue``, when ``invalidate()`` has completed; cleared before it is called.
    open var invalidationHandler: (() -> Void)? {
        get { state.withLock { $0.invalidationHandler.value } }
        set {
            let handler = Unchecked(newValue)
            state.withLock { $0.invalidationHandler = handler }
        }
    }

    /// Called on ``dispatchQueue`` with ``ENActivityFlags/periodicRun`` by the environment's scheduler while
    /// Exposure Notification is enabled (set it before ``activate()``, as Apple's documentation says).
    open var activityHandler: ENActivityHandler? {
        get { state.withLock { $0.activityHandler.value } }
        set {
            let handler = Unchecked(newValue)
            state.withLock { $0.activityHandler = handler }
        }
    }

    /// Called on ``dispatchQueue`` with the keys that ``requestPreAuthorizedDiagnosisKeys()`` releases.
    open var diagnosisKeysAvailableHandler: ENDiagnosisKeysAvailableHandler? {
        get { state.withLock { $0.diagnosisKeysAvailableHandler.value } }
        set {
            let handler = Unchecked(newValue)
            state.withLock { $0.diagnosisKeysAvailableHandler = handler }
        }
    }

    /// The status, enabled flag and authorization: the current values first, then each change, until the
    /// manager is invalidated.
    open func statusUpdates() -> AsyncStream<ENStatusUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: ENStatusUpdate.self)
        let authorization = authorizationStatus
        state.withLock { state in
            guard state.phase != .invalidated else {
                continuation.finish()
                return
            }
            state.nextObserver += 1
            let id = state.nextObserver
            state.observers[id] = continuation
            continuation.yield(
                ENStatusUpdate(status: state.status, enabled: state.enabled, authorizationStatus: authorization))
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
            }
        }
        return stream
    }

    // MARK: Lifecycle

    /// Writes the state of the manager's in-memory store (``ENEnvironment/StoreLocation/inMemory``) to a new file at
    /// `url`, which a later manager starts from through ``ENEnvironment/inMemorySnapshot``: how a simulation of
    /// thousands of phones keeps them in memory and still resumes. Call it while no operation is under way.
    ///
    /// - Throws: `badParameter` for a store in a directory; `dataInaccessible` when the file exists or cannot be
    ///   written.
    package func writeStoreSnapshot(to url: URL) throws(ENError) {
        try storage.writeSnapshot(to: url)
    }

    /// Activates the manager: opens the framework's state, restores the enabled flag, and starts the radio when
    /// Exposure Notification is enabled and authorized.
    ///
    /// - Throws: `ENError.apiMisuse` on a second call; `invalidated` after ``invalidate()``; the store's error
    ///   when the state cannot be opened.
    open func activate() async throws(ENError) {
        let claimed: ENError? = state.withLock { state in
            switch state.phase {
            case .created:
                state.phase = .activating
                return nil
            case .activating, .activated: return ENError(.apiMisuse, "activate was already called")
            case .invalidated: return ENCompletionGate.invalidatedError
            }
        }
        if let claimed { throw claimed }
        do throws(ENError) {
            try await gate.run { () async throws(ENError) in
                let saved = try self.storage.managerState()
                self.state.withLock { $0.phase = .activated }
                self.apply(enabled: saved.exposureNotificationEnabled, authorization: saved.authorizationStatus)
                try self.storage.maintain(at: self.environment.clock.now)
                self.schedulePeriodicRuns()
            }
        } catch {
            // A failed activation may be tried again.
            state.withLock { if $0.phase == .activating { $0.phase = .created } }
            throw error
        }
    }

    /// Invalidates the manager: stops the radio and the periodic runs, fails pending operations with
    /// `ENError.invalidated`, then calls ``invalidationHandler`` once on ``dispatchQueue``.
    open func invalidate() {
        let (handler, observers, periodic, radioRunning) = state.withLock { state in
            let handler = state.invalidationHandler.value
            state.invalidationHandler = Unchecked(nil)
            state.phase = .invalidated
            let observers = Array(state.observers.values)
            state.observers = [:]
            let periodic = state.periodicTask
            state.periodicTask = nil
            let radio = state.radioRunning
            state.radioRunning = false
            return (Unchecked(handler), observers, periodic, radio)
        }
        periodic?.cancel()
        if radioRunning { stopRadio() }
        for observer in observers { observer.finish() }
        gate.invalidate(then: handler.value)
    }

    /// Runs `operation` and delivers its result on ``dispatchQueue``; see ``ExposureManaging/deliver(_:to:)``.
    open func deliver<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws(ENError) -> Value,
        to completion: @escaping (Result<Value, ENError>) -> Void
    ) {
        gate.deliver(operation, to: completion)
    }

    // MARK: Enabling

    /// Enables or disables Exposure Notification.
    ///
    /// - Throws: `apiMisuse` before activation; `notAuthorized` when the user refuses (or refused before);
    ///   `restricted` under a device policy.
    open func setExposureNotificationEnabled(_ enabled: Bool) async throws(ENError) {
        try await activated { () async throws(ENError) in
            var authorization = try self.storage.managerState().authorizationStatus
            if enabled {
                switch authorization {
                case .authorized: break
                case .restricted: throw ENError(.restricted, "a system policy does not allow Exposure Notification")
                case .notAuthorized:
                    throw ENError(.notAuthorized, "the user did not authorize Exposure Notification")
                case .unknown:
                    let granted = await self.environment.consent.authorizeExposureNotification()
                    authorization = granted ? .authorized : .notAuthorized
                    try self.storage.setAuthorizationStatus(authorization)
                    guard granted else {
                        self.apply(enabled: false, authorization: authorization)
                        throw ENError(.notAuthorized, "the user did not authorize Exposure Notification")
                    }
                }
            }
            try self.storage.setEnabled(enabled)
            self.apply(enabled: enabled, authorization: authorization)
            // Enabled now: today's key exists from this moment, as on iOS (whether or not the radio asks for it).
            try self.storage.maintain(at: self.environment.clock.now)
        }
    }

    // MARK: Keys

    /// The keys of the past 14 days, after the user agreed to release them; see the type's semantics for the
    /// current key.
    ///
    /// - Throws: `notAuthorized` when the app is not authorized or the user refuses.
    open func getDiagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey] {
        try await activated { () async throws(ENError) in
            try self.requireAuthorization()
            guard await self.environment.consent.releaseDiagnosisKeys() else {
                throw ENError(.notAuthorized, "the user did not release the keys")
            }
            try self.storage.maintain(at: self.environment.clock.now)
            return try self.storage.releasedKeys(
                at: self.environment.clock.now, sameDay: self.environment.apiVersion == .version2)
        }
    }

    /// The keys of the past 14 days and the current key, unchanged, after the user agreed.
    ///
    /// - Throws: `notEntitled` without ``ENEntitlements/testDiagnosisKeys``; `notAuthorized` as
    ///   ``getDiagnosisKeys()``.
    open func getTestDiagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey] {
        try await activated { () async throws(ENError) in
            guard self.environment.entitlements.contains(.testDiagnosisKeys) else {
                throw ENError(.notEntitled, "getTestDiagnosisKeys needs the test entitlement")
            }
            try self.requireAuthorization()
            guard await self.environment.consent.releaseDiagnosisKeys() else {
                throw ENError(.notAuthorized, "the user did not release the keys")
            }
            try self.storage.maintain(at: self.environment.clock.now)
            return try self.storage.testKeys(at: self.environment.clock.now)
        }
    }

    /// Asks the user to pre-authorize one release of the keys within the next 5 days.
    ///
    /// - Throws: `notAuthorized` when the app is not authorized or the user refuses; `notEnabled` when
    ///   Exposure Notification is off.
    open func preAuthorizeDiagnosisKeys() async throws(ENError) {
        try await activated { () async throws(ENError) in
            try self.requireAuthorization()
            guard self.exposureNotificationEnabled else {
                throw ENError(.notEnabled, "Exposure Notification is not enabled")
            }
            guard await self.environment.consent.preAuthorizeDiagnosisKeyRelease() else {
                throw ENError(.notAuthorized, "the user did not pre-authorize the release of the keys")
            }
            try self.storage.setPreAuthorization(ENPreAuthorization(authorizedAt: self.environment.clock.now))
        }
    }

    /// Releases the keys once under the user's pre-authorization: ``diagnosisKeysAvailableHandler`` is called
    /// with them on ``dispatchQueue``. A request after the release returns no keys and no error.
    ///
    /// - Throws: `apiMisuse` without a ``diagnosisKeysAvailableHandler``; `notAuthorized` without a
    ///   pre-authorization or after it expired (5 days).
    open func requestPreAuthorizedDiagnosisKeys() async throws(ENError) {
        try await activated { () async throws(ENError) in
            guard let handler = self.state.withLock({ $0.diagnosisKeysAvailableHandler }).value else {
                throw ENError(.apiMisuse, "set diagnosisKeysAvailableHandler before requesting pre-authorized keys")
            }
            let now = self.environment.clock.now
            try self.storage.maintain(at: now)
            guard
                let release = try self.storage.releasePreAuthorizedKeys(
                    at: now, validity: self.environment.limits.preAuthorizationValidity,
                    sameDay: self.environment.apiVersion == .version2)
            else { return }
            let delivered = Unchecked(handler)
            self.gate.post { delivered.value(release) }
        }
    }

    /// Whether the user traveled in the exposure period, from the environment.
    ///
    /// - Throws: `travelStatusNotAvailable` when the environment cannot tell.
    open func getUserTraveled() async throws(ENError) -> Bool {
        try await activated { () async throws(ENError) in
            guard let travelStatus = self.environment.travelStatus else {
                throw ENError(.travelStatusNotAvailable, "the travel status is not available")
            }
            return await travelStatus()
        }
    }

    // MARK: Detection

    /// Detects exposures in the key files at `diagnosisKeyURLs` and the keys cached from earlier detections.
    ///
    /// The files are zips holding `export.bin` and `export.sig`, or `.bin` and `.sig` files passed as pairs
    /// with the same base name. Every file is verified against ``ENEnvironment/trustedKeys`` before any key is
    /// used (by ``ENEnvironment/signatureRule``: the first signature decides by default, as on iOS); the same `export.bin` given twice, or already cached,
    /// counts once. Then the keys of the new files and of the files cached in the last 14 days are streamed
    /// into the matcher against the retained sightings, and scored by the API version: version 1 fills the
    /// summary's version 1 properties and keeps the `ENExposureInfo`s for ``getExposureInfo(summary:userExplanation:)``;
    /// version 2 fills ``ENExposureDetectionSummary/daySummaries`` and keeps the windows for
    /// ``getExposureWindows(summary:)``. The result, the new files (cached for 14 days) and a rate-limit entry
    /// are stored in one transaction: a detection that fails or is cancelled stores nothing.
    ///
    /// An empty list is no error: the detection covers the cached keys only, is stored as a detection and
    /// counts toward the rate limit (earlier results stay).
    ///
    /// - Throws: `apiMisuse` before activation; `notAuthorized` or `notEnabled` when Exposure Notification is
    ///   not authorized or not enabled; `rateLimited` when the limit of ``ENLimits`` is reached (checked before
    ///   any work); `badParameter` for an invalid configuration or a `.bin` without its `.sig` (or the
    ///   reverse), naming the file; `badFormat` for a file that is no export file or does not verify (context
    ///   section `export.sig`), naming it; `invalidated` when cancelled or invalidated.
    open func detectExposures(
        configuration: ENExposureConfiguration, diagnosisKeyURLs: [URL]
    ) async throws(ENError) -> ENExposureDetectionSummary {
        try await activated { () async throws(ENError) in
            try self.requireDetectionAllowed()
            try self.storage.maintain(at: self.environment.clock.now)
            let files = try DiagnosisKeyFile.group(diagnosisKeyURLs)
            return try await self.runDetection(configuration: configuration, files: files)
        }
    }

    /// Detects exposures in the keys cached from the detections of the last 14 days: the same as
    /// ``detectExposures(configuration:diagnosisKeyURLs:)`` with no URLs. API version 2 only, as on iOS.
    ///
    /// - Throws: `apiMisuse` with API version 1; otherwise as ``detectExposures(configuration:diagnosisKeyURLs:)``.
    open func detectExposures(
        configuration: ENExposureConfiguration
    ) async throws(ENError) -> ENExposureDetectionSummary {
        try await activated { () async throws(ENError) in
            guard self.environment.apiVersion == .version2 else {
                throw ENError(.apiMisuse, "detectExposures(configuration:) needs ENAPIVersion 2")
            }
            try self.requireDetectionAllowed()
            try self.storage.maintain(at: self.environment.clock.now)
            return try await self.runDetection(configuration: configuration, files: [])
        }
    }

    /// The exposure windows of the detection that returned `summary`: one per key and up to 30 minutes of
    /// scans, for every matched key whose report type and infectiousness count (windows with infectiousness
    /// `none`, or a report type that maps to `unknown`, are left out; the score filters are not applied).
    ///
    /// - Throws: `apiMisuse` with API version 1 or for a version 1 summary; `badParameter` for a summary that
    ///   this manager did not return, or whose detection expired (after 14 days).
    open func getExposureWindows(summary: ENExposureDetectionSummary) async throws(ENError) -> [ENExposureWindow] {
        try await activated { () async throws(ENError) in
            guard self.environment.apiVersion == .version2 else {
                throw ENError(.apiMisuse, "getExposureWindows needs ENAPIVersion 2")
            }
            return try self.storedDetection(for: summary, version: .version2).exposureWindows
        }
    }

    /// The exposures of the detection that returned `summary`, one per matched key that passes the
    /// configuration's minimum risk scores; `userExplanation` goes to the environment's notification sink.
    ///
    /// - Throws: `apiMisuse` with API version 2 or for a version 2 summary; `badParameter` for a summary that
    ///   this manager did not return, or whose detection expired (after 14 days).
    open func getExposureInfo(
        summary: ENExposureDetectionSummary, userExplanation: String
    ) async throws(ENError) -> [ENExposureInfo] {
        try await activated { () async throws(ENError) in
            guard self.environment.apiVersion == .version1 else {
                throw ENError(.apiMisuse, "getExposureInfo needs ENAPIVersion 1; use getExposureWindows")
            }
            let infos = try self.storedDetection(for: summary, version: .version1).exposureInfo
            self.environment.notifications.notifyUser(userExplanation)
            return infos
        }
    }

    /// Runs a detection on a thread of its own (it is CPU-bound for seconds), cancelled with the calling task.
    private func runDetection(
        configuration: ENExposureConfiguration, files: [DiagnosisKeyFile]
    ) async throws(ENError) -> ENExposureDetectionSummary {
        let flag = CancellationFlag()
        let detector = ExposureDetector(
            environment: environment, store: try storage.store(), managerID: instanceID, memo: storage.detectionMemo,
            recent: storage.recentDetection, isCancelled: { flag.isCancelled })
        let result: Result<ENExposureDetectionSummary, ENError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                DispatchQueue.global(qos: .utility).async {
                    do throws(ENError) {
                        continuation.resume(
                            returning: .success(try detector.detect(configuration: configuration, files: files)))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
        } onCancel: {
            flag.cancel()
        }
        return try result.get()
    }

    /// The stored detection behind `summary`.
    private func storedDetection(
        for summary: ENExposureDetectionSummary, version: ENAPIVersion
    ) throws(ENError) -> StoredDetection {
        guard let origin = summary.origin, origin.manager == instanceID else {
            throw ENError(.badParameter, "the summary was not returned by this manager's detectExposures")
        }
        guard origin.apiVersion == version else {
            throw ENError(.apiMisuse, "the summary is from a detection with ENAPIVersion \(origin.apiVersion.rawValue)")
        }
        let store = try storage.store()
        if let recent = storage.recentDetection.result(id: origin.detectionID, in: store) { return recent }
        guard
            let detection = try store.read(
                .detection(id: origin.detectionID, as: StoredDetection.self, kind: StoredDetection.kind))
        else {
            throw ENError(.badParameter, "the summary's detection is no longer stored (older than 14 days)")
        }
        return detection.result
    }

    /// Detection needs an authorized app with Exposure Notification enabled.
    private func requireDetectionAllowed() throws(ENError) { try storage.requireDetectionAllowed() }

    // MARK: Internals

    /// Runs `operation` once the manager is activated (apiMisuse before, invalidated after).
    private func activated<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws(ENError) -> Value
    ) async throws(ENError) -> Value {
        let phase = state.withLock { $0.phase }
        switch phase {
        case .created, .activating: throw ENError(.apiMisuse, "call activate first")
        case .invalidated: throw ENCompletionGate.invalidatedError
        case .activated: return try await gate.run(operation)
        }
    }

    private func requireAuthorization() throws(ENError) { try storage.requireAuthorization() }

    /// Sets the observable state from the saved flags and starts or stops the radio and periodic runs to match.
    private func apply(enabled: Bool, authorization: ENAuthorizationStatus) {
        let radio = environment.radio
        let active = enabled && authorization == .authorized
        let status: ENStatus =
            switch authorization {
            case .restricted: .restricted
            case .notAuthorized: .unauthorized
            case .unknown, .authorized: !enabled ? .disabled : radio.isPoweredOn ? .active : .bluetoothOff
            }
        let (start, stop, observers) = state.withLock { state in
            guard state.phase == .activated else { return (false, false, [AsyncStream<ENStatusUpdate>.Continuation]()) }
            state.status = status
            state.enabled = enabled
            let start = active && !state.radioRunning
            let stop = !active && state.radioRunning
            state.radioRunning = active
            return (start, stop, Array(state.observers.values))
        }
        let update = ENStatusUpdate(status: status, enabled: enabled, authorizationStatus: authorization)
        for observer in observers { observer.yield(update) }
        ENStatusChanges.post()
        if start { startRadio() }
        if stop { stopRadio() }
    }

    private func startRadio() {
        let radio = environment.radio
        radio.startBroadcasting(Broadcaster(storage: storage))
        let storage = self.storage
        radio.startScanning(batches: { sightings in storage.record(contentsOf: sightings) })
    }

    /// Schedules the periodic runs for as long as the manager is activated: retention runs in each, enabled or
    /// not, and the app's handler is called while Exposure Notification is enabled.
    private func schedulePeriodicRuns() {
        let task = environment.scheduler.schedule(every: environment.limits.periodicRunInterval) { [weak self] in
            self?.periodicRun()
        }
        let (old, stored) = state.withLock { state in
            guard state.phase == .activated else { return (nil as (any ENScheduledTask)?, false) }
            let old = state.periodicTask
            state.periodicTask = task
            return (old, true)
        }
        old?.cancel()
        if !stored { task.cancel() }
    }

    private func stopRadio() {
        environment.radio.stopBroadcasting()
        environment.radio.stopScanning()
    }

    /// A periodic run (every ``ENLimits/periodicRunInterval``, at most a day, while activated): retention and, while
    /// enabled, the new day's key; then, while enabled, the app's activity handler.
    private func periodicRun() {
        try? storage.maintain(at: environment.clock.now)
        guard let handler = state.withLock({ $0.radioRunning ? $0.activityHandler : Unchecked(nil) }).value else {
            return
        }
        let delivered = Unchecked(handler)
        gate.post { delivered.value(.periodicRun) }
    }
}
