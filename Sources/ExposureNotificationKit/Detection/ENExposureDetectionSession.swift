public import ENCore
internal import ENMatching
public import ENRiskV1
internal import ENStore
public import Foundation

/// Apple's earliest detection API (iOS 13.5 beta): diagnosis keys handed over in batches, version 1 results read
/// back in pages.
///
/// The session matches against the device's sightings, in the same framework store as ``ENManager`` (the
/// environment's ``ENEnvironment/storeLocation``), and scores with version 1 scoring (`ENScoringV1`), as
/// Apple's session did. The code of Apple's sample runs unchanged:
///
/// ```swift
/// let session = ENExposureDetectionSession()
/// let batchSize = session.maximumKeyCount
/// session.configuration = configuration
/// session.activate { error in
///     // for each batch of at most batchSize keys:
///     session.addDiagnosisKeys(batch) { error in ... }
///     // then:
///     session.finishedDiagnosisKeys { summary, error in
///         session.getExposureInfo(withMaximumCount: 100) { exposures, done, error in ... }
///     }
/// }
/// ```
///
/// Every operation exists in Apple's completion-handler form (handlers run on ``dispatchQueue``) and as
/// `async throws`. The session is `Sendable`: any thread may call it.
///
/// ## Semantics
/// - ``activate()`` validates ``configuration`` (`ENError.badParameter` when it is invalid), checks, as
///   ``ENManager``'s detection does, that the user authorized Exposure Notification (`ENError.notAuthorized`,
///   `ENError.restricted`) and that it is enabled (`ENError.notEnabled`), and reads the sightings of the
///   retention period (14 days). After such a failure the session may be activated again. The configuration
///   in force is the one set before `activate`: setting it later changes the property, not this session's
///   scoring.
/// - ``addDiagnosisKeys(_:)`` matches each batch as it arrives, one batch after the other in call order (each
///   on every core, at most ``ENLimits/maximumDetectionThreads``, as the manager's detection), keeping only what
///   matched between batches. Across batches the matcher's rules hold as if all keys had
///   come at once: the same key data in several batches counts once (its first matching occurrence wins), and
///   a revoked key cancels the matches of the same key data, also those of an earlier batch. Keys the matcher
///   ignores (rolling period 0 or above 144, key data not 16 bytes) and keys that ended before the retention
///   period (as ``ENManager`` leaves them out) are accepted and never match.
/// - ``finishedDiagnosisKeys()`` waits for the batches before it, scores the matches at the environment's
///   clock's now as ``ENManager`` does in API version 1, and returns an ``ENExposureDetectionSummary`` with the
///   version 1 properties (``ENExposureDetectionSummary/daySummaries`` is empty; the summary belongs to no
///   manager, so `ENManager`'s `getExposureInfo(summary:)` refuses it); ``getExposureInfo(withMaximumCount:)`` then pages through
///   the `ENExposureInfo`s that passed the configuration's minimum scores, in the order their keys were first
///   added, `done` once none remain (later calls return no infos and `done`).
/// - `ENError.apiMisuse` (Apple's rules): ``activate()`` a second time or after ``invalidate()``;
///   ``addDiagnosisKeys(_:)`` before `activate` has completed, after ``finishedDiagnosisKeys()`` was called,
///   after `invalidate`, or with more keys than ``maximumKeyCount`` minus the keys of the batches still being
///   matched; ``finishedDiagnosisKeys()`` before `activate` has completed, a second time or after `invalidate`;
///   ``getExposureInfo(withMaximumCount:)`` before `finishedDiagnosisKeys` has completed or after `invalidate`.
///   A maximum count below 1 is `ENError.badParameter`.
/// - ``invalidate()`` ends the session: work still pending fails with `ENError.invalidated` (matching stops
///   between groups of keys), then ``invalidationHandler`` runs once. Unlike Apple's, a session released
///   while active is not a crash: it simply ends.
/// - A call rejected at once (`apiMisuse`, `badParameter`) reports to its completion handler on
///   ``dispatchQueue``, also after `invalidate` (Apple's session does the same); nothing else runs after the
///   invalidation handler.
public final class ENExposureDetectionSession: Sendable {
    private struct State {
        var phase = Phase.created
        var configuration = ENExposureConfiguration()
        var invalidationHandler: Unchecked<(() -> Void)?> = Unchecked(nil)
        /// Keys of batches accepted but not yet matched.
        var outstandingKeys = 0
        /// The configuration taken at activation.
        var activeConfiguration = ENExposureConfiguration()
        /// The matching run; only the work queue takes it out and puts it back.
        var run: ENIncrementalMatch?
        /// The results, once finished, and how many were handed out.
        var exposureInfo: [ENExposureInfo] = []
        var exposureInfoDelivered = 0
    }

    private enum Phase { case created, activating, activated, finishing, finished, invalidated }

    /// What the operating system provides, as given when the session was created.
    public let environment: ENEnvironment

    /// The most keys one ``addDiagnosisKeys(_:)`` call may pass, counting the keys of earlier batches that are
    /// still being matched: 1000, Apple's value.
    public let maximumKeyCount: Int = 1000

    private let state = Locked(State())
    let gate = ENCompletionGate()
    private let storage: FrameworkStorage
    /// Runs the session's work in call order (a serial queue); tests suspend it to hold work pending.
    let workQueue = DispatchQueue(label: "ENExposureDetectionSession.work", qos: .userInitiated)

    /// Keys of batches accepted and not yet matched (tests wait for an async call to be accepted).
    var outstandingKeyCount: Int { state.withLock { $0.outstandingKeys } }

    /// Creates a session on ``ENEnvironment/default``, as Apple's `ENExposureDetectionSession()`.
    public convenience init() {
        self.init(environment: .default)
    }

    /// Creates a session on `environment`.
    public init(environment: ENEnvironment) {
        self.environment = environment
        self.storage = FrameworkStorage(environment: environment)
    }

    // MARK: Properties

    /// Whether the user authorized the app, as Apple's class property (``ENManager/authorizationStatus-swift.type.property``).
    public static var authorizationStatus: ENAuthorizationStatus { ENManager.authorizationStatus }

    /// How matches are scored; a fresh `ENExposureConfiguration()` by default. Set it before ``activate()``:
    /// the session scores with the value it had then.
    public var configuration: ENExposureConfiguration {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    /// The queue handlers are called on; the main queue by default.
    public var dispatchQueue: DispatchQueue {
        get { gate.queue }
        set { gate.queue = newValue }
    }

    /// Called once, on ``dispatchQueue``, when ``invalidate()`` has completed; cleared before it is called.
    public var invalidationHandler: (() -> Void)? {
        get { state.withLock { $0.invalidationHandler.value } }
        set {
            let handler = Unchecked(newValue)
            state.withLock { $0.invalidationHandler = handler }
        }
    }

    // MARK: Operations

    /// Activates the session: validates ``configuration``, checks that detection is allowed and loads the
    /// device's sightings of the retention period.
    ///
    /// - Throws: `ENError.apiMisuse` on a second call or after ``invalidate()``; `ENError.badParameter` for an
    ///   invalid configuration; `ENError.notAuthorized` or `ENError.restricted` when the user has not authorized
    ///   Exposure Notification, `ENError.notEnabled` when it is disabled; the store's error when the sightings
    ///   cannot be read; `ENError.invalidated` when the session is invalidated meanwhile.
    public func activate() async throws(ENError) {
        let pending = try startActivation()
        try await gate.run { () async throws(ENError) in try await pending.value() }
    }

    /// Matches a batch of diagnosis keys against the sightings and keeps the matches for
    /// ``finishedDiagnosisKeys()``.
    ///
    /// - Throws: `ENError.apiMisuse` before activation, after ``finishedDiagnosisKeys()`` or ``invalidate()``,
    ///   or with more keys than ``maximumKeyCount`` allows; `ENError.invalidated` when the session is
    ///   invalidated before the batch is matched.
    public func addDiagnosisKeys(_ keys: [ENTemporaryExposureKey]) async throws(ENError) {
        let pending = try startAdding(keys)
        try await gate.run { () async throws(ENError) in try await pending.value() }
    }

    /// Ends the batches: scores every match of the keys added and returns the summary.
    ///
    /// - Throws: `ENError.apiMisuse` before activation, on a second call or after ``invalidate()``;
    ///   `ENError.invalidated` when the session is invalidated before the summary is ready.
    public func finishedDiagnosisKeys() async throws(ENError) -> ENExposureDetectionSummary {
        let pending = try startFinishing()
        return try await gate.run { () async throws(ENError) in try await pending.value() }
    }

    /// The next at most `maximumCount` exposure infos, and whether they were the last (`done`).
    ///
    /// - Throws: `ENError.apiMisuse` before ``finishedDiagnosisKeys()`` has completed or after ``invalidate()``;
    ///   `ENError.badParameter` when `maximumCount` is below 1.
    public func getExposureInfo(withMaximumCount maximumCount: Int) async throws(ENError) -> (
        exposureInfo: [ENExposureInfo], done: Bool
    ) {
        try nextExposureInfo(maximumCount: maximumCount)
    }

    /// Invalidates the session: work still pending fails with `ENError.invalidated`, then
    /// ``invalidationHandler`` is called once on ``dispatchQueue``. Calls after it fail with `apiMisuse`.
    public func invalidate() {
        let handler = state.withLock { state in
            let handler = state.invalidationHandler.value
            state.invalidationHandler = Unchecked(nil)
            state.phase = .invalidated
            state.run = nil
            state.exposureInfo = []
            return Unchecked(handler)
        }
        gate.invalidate(then: handler.value)
    }

    // MARK: Steps
    // Each operation checks Apple's rules at once, under the lock, then enqueues its work on the work queue, so that
    // work runs in call order; the async and completion-handler forms await the same pending result.

    func startActivation() throws(ENError) -> PendingResult<Void> {
        let configuration = try state.withLock { (state: inout State) throws(ENError) -> ENExposureConfiguration in
            switch state.phase {
            case .created:
                state.phase = .activating
                return state.configuration
            case .invalidated: throw Self.invalidatedMisuse
            case .activating, .activated, .finishing, .finished: throw .apiMisuse("activate was already called")
            }
        }
        let pending = PendingResult<Void>()
        workQueue.async {
            let result: Result<Void, ENError>
            do throws(ENError) {
                try configuration.validate()
                try self.storage.requireDetectionAllowed()
                try self.storage.maintain(at: self.environment.clock.now)
                let matcher = try ENMatcher(sightings: try self.storage.store().read(.retainedSightings))
                result = self.state.withLock { state in
                    guard state.phase == .activating else { return .failure(ENCompletionGate.invalidatedError) }
                    state.phase = .activated
                    state.activeConfiguration = configuration
                    state.run = ENIncrementalMatch(matcher: matcher)
                    return .success(())
                }
            } catch {
                // A failed activation may be tried again.
                self.state.withLock { if $0.phase == .activating { $0.phase = .created } }
                result = .failure(error)
            }
            pending.complete(result)
        }
        return pending
    }

    func startAdding(_ keys: [ENTemporaryExposureKey]) throws(ENError) -> PendingResult<Void> {
        let maximumKeyCount = self.maximumKeyCount
        try state.withLock { (state: inout State) throws(ENError) in
            switch state.phase {
            case .activated: break
            case .created, .activating: throw .apiMisuse("addDiagnosisKeys before activate completed")
            case .finishing, .finished: throw .apiMisuse("addDiagnosisKeys after finishedDiagnosisKeys")
            case .invalidated: throw Self.invalidatedMisuse
            }
            guard keys.count <= maximumKeyCount - state.outstandingKeys else {
                throw .apiMisuse(
                    "\(keys.count) keys with \(state.outstandingKeys) still being matched exceed maximumKeyCount "
                        + "\(maximumKeyCount)")
            }
            state.outstandingKeys += keys.count
        }
        let pending = PendingResult<Void>()
        let gate = self.gate
        let environment = self.environment
        workQueue.async {
            guard var run = self.state.withLock({ $0.run.take() }) else {
                self.state.withLock { $0.outstandingKeys -= keys.count }
                pending.complete(.failure(ENCompletionGate.invalidatedError))
                return
            }
            let result: Result<Void, ENError>
            do throws(ENError) {
                // One batch of the call's size (at most maximumKeyCount keys): no buffers beyond what it needs.
                let oldest = ENIntervalNumber(
                    date: environment.clock.now.addingTimeInterval(-environment.limits.retention))
                let retained = keys.filter { ExposureDetector.isRetained($0, oldest: oldest) }
                let options = ENMatchingOptions(
                    threadCount: ExposureDetector.matchingThreadCount(environment.limits),
                    batchSize: max(1, retained.count), isCancelled: { gate.isInvalidated })
                if !retained.isEmpty { try run.add(retained, options: options) }
                result = .success(())
            } catch {
                result = .failure(error)
            }
            // The run is unchanged when the batch failed; after invalidation it is dropped. The keys stop counting
            // as outstanding before the caller hears of it, so that its next batch may use the room.
            self.state.withLock { state in
                state.outstandingKeys -= keys.count
                if state.phase != .invalidated { state.run = run }
            }
            pending.complete(result)
        }
        return pending
    }

    func startFinishing() throws(ENError) -> PendingResult<ENExposureDetectionSummary> {
        try state.withLock { (state: inout State) throws(ENError) in
            switch state.phase {
            case .activated: state.phase = .finishing
            case .created, .activating: throw .apiMisuse("finishedDiagnosisKeys before activate completed")
            case .finishing, .finished: throw .apiMisuse("finishedDiagnosisKeys was already called")
            case .invalidated: throw Self.invalidatedMisuse
            }
        }
        let pending = PendingResult<ENExposureDetectionSummary>()
        let clock = environment.clock
        workQueue.async {
            let (taken, configuration) = self.state.withLock { ($0.run.take(), $0.activeConfiguration) }
            guard let run = taken else {
                pending.complete(.failure(ENCompletionGate.invalidatedError))
                return
            }
            let result: Result<ENExposureDetectionSummary, ENError>
            do throws(ENError) {
                let matched = try run.finish()
                // Version 1 scoring, as the manager scores in API version 1.
                let scored = ExposureDetector.score(
                    matched.matches, configuration: configuration, apiVersion: .version1, now: clock.now)
                result = self.state.withLock { state in
                    guard state.phase == .finishing else { return .failure(ENCompletionGate.invalidatedError) }
                    state.phase = .finished
                    state.exposureInfo = scored.exposureInfo
                    return .success(scored.summary)
                }
            } catch {
                // Let the app try again: the matches are kept.
                self.state.withLock { state in
                    guard state.phase == .finishing else { return }
                    state.phase = .activated
                    state.run = run
                }
                result = .failure(error)
            }
            pending.complete(result)
        }
        return pending
    }

    func nextExposureInfo(maximumCount: Int) throws(ENError) -> (exposureInfo: [ENExposureInfo], done: Bool) {
        try state.withLock { (state: inout State) throws(ENError) in
            switch state.phase {
            case .finished: break
            case .created, .activating, .activated, .finishing:
                throw .apiMisuse("getExposureInfo before finishedDiagnosisKeys completed")
            case .invalidated: throw Self.invalidatedMisuse
            }
            guard maximumCount >= 1 else {
                throw .badParameter(
                    "getExposureInfo(withMaximumCount:) needs a count of at least 1, not \(maximumCount)")
            }
            let start = state.exposureInfoDelivered
            let end = start + min(maximumCount, state.exposureInfo.count - start)
            state.exposureInfoDelivered = end
            return (Array(state.exposureInfo[start..<end]), end == state.exposureInfo.count)
        }
    }

    private static let invalidatedMisuse = ENError.apiMisuse("the session was invalidated")
}
