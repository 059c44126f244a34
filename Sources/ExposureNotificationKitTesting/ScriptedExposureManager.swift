public import ExposureNotificationKit
public import Foundation

/// An in-memory `ExposureManaging` whose answers a test scripts: the user's answers, the keys, the status,
/// the errors. It keeps Apple's call-order rules and error codes (`apiMisuse` before `activate` and on a second
/// `activate`, `invalidated` after `invalidate`, handlers on the dispatch queue, nothing after the invalidation
/// handler), so that app code tested against it behaves as on `ENManager`. It records every call.
///
/// ```swift
/// let manager = ScriptedExposureManager(script: .init(diagnosisKeys: keys))
/// let app = MyExposureController(manager: manager)   // app code written against ExposureManaging
/// try await app.shareKeys()
/// #expect(manager.calls == [.activate, .setExposureNotificationEnabled, .getDiagnosisKeys])
/// ```
public final class ScriptedExposureManager: ExposureManaging {
    /// An operation of `ExposureManaging`, as recorded in ``calls`` and keyed in ``Script/errors``.
    public enum Operation: Hashable, Sendable {
        /// `activate`.
        case activate
        /// `setExposureNotificationEnabled`.
        case setExposureNotificationEnabled
        /// `getDiagnosisKeys`.
        case getDiagnosisKeys
        /// `getTestDiagnosisKeys`.
        case getTestDiagnosisKeys
        /// `preAuthorizeDiagnosisKeys`.
        case preAuthorizeDiagnosisKeys
        /// `requestPreAuthorizedDiagnosisKeys`.
        case requestPreAuthorizedDiagnosisKeys
        /// `getUserTraveled`.
        case getUserTraveled
        /// `detectExposures(configuration:diagnosisKeyURLs:)` and `detectExposures(configuration:)`.
        case detectExposures
        /// `getExposureWindows(summary:)`.
        case getExposureWindows
        /// `getExposureInfo(summary:userExplanation:)`.
        case getExposureInfo
    }

    /// What the double answers.
    public struct Script: Sendable {
        /// The app's authorization; `ENAuthorizationStatus.unknown` asks ``userConsents`` on the first enable.
        public var authorizationStatus: ENAuthorizationStatus
        /// The user's answer to every prompt.
        public var userConsents: Bool
        /// Whether Bluetooth is on.
        public var bluetoothOn: Bool
        /// The keys `getDiagnosisKeys` and a pre-authorized release return.
        public var diagnosisKeys: [ENTemporaryExposureKey]
        /// The keys `getTestDiagnosisKeys` returns.
        public var testDiagnosisKeys: [ENTemporaryExposureKey]
        /// Whether the app has the test entitlement.
        public var testEntitlement: Bool
        /// `getUserTraveled`'s answer, or `nil` for `travelStatusNotAvailable`.
        public var userTraveled: Bool?
        /// An error an operation throws (each time it is called, before any other rule applies except the call
        /// order), by operation.
        public var errors: [Operation: ENError]
        /// What every detection returns.
        public var detectionSummary: ENExposureDetectionSummary
        /// What `getExposureWindows(summary:)` returns.
        public var exposureWindows: [ENExposureWindow]
        /// What `getExposureInfo(summary:userExplanation:)` returns.
        public var exposureInfo: [ENExposureInfo]

        /// Creates a script; by default the user consents and has no keys.
        public init(
            authorizationStatus: ENAuthorizationStatus = .unknown, userConsents: Bool = true, bluetoothOn: Bool = true,
            diagnosisKeys: [ENTemporaryExposureKey] = [], testDiagnosisKeys: [ENTemporaryExposureKey] = [],
            testEntitlement: Bool = false, userTraveled: Bool? = nil, errors: [Operation: ENError] = [:],
            detectionSummary: ENExposureDetectionSummary = ENExposureDetectionSummary(),
            exposureWindows: [ENExposureWindow] = [], exposureInfo: [ENExposureInfo] = []
        ) {
            self.detectionSummary = detectionSummary
            self.exposureWindows = exposureWindows
            self.exposureInfo = exposureInfo
            self.authorizationStatus = authorizationStatus
            self.userConsents = userConsents
            self.bluetoothOn = bluetoothOn
            self.diagnosisKeys = diagnosisKeys
            self.testDiagnosisKeys = testDiagnosisKeys
            self.testEntitlement = testEntitlement
            self.userTraveled = userTraveled
            self.errors = errors
        }
    }

    private struct State {
        var script: Script
        var activated = false
        var invalidated = false
        var enabled = false
        var preAuthorized = false
        var released = false
        var calls: [Operation] = []
        var invalidationHandler = Unchecked<(() -> Void)?>(nil)
        var activityHandler = Unchecked<ENActivityHandler?>(nil)
        var keysHandler = Unchecked<ENDiagnosisKeysAvailableHandler?>(nil)
        var observers: [AsyncStream<ENStatusUpdate>.Continuation] = []
    }

    private let state: Locked<State>
    private let gate = ENCompletionGate()

    /// Creates a double that answers as `script` says.
    public init(script: Script = Script()) {
        state = Locked(State(script: script))
    }

    /// The script; change it at any time.
    public var script: Script {
        get { state.withLock { $0.script } }
        set { state.withLock { $0.script = newValue } }
    }

    /// Every operation called, in order.
    public var calls: [Operation] { state.withLock { $0.calls } }

    /// The queue handlers run on.
    public var dispatchQueue: DispatchQueue {
        get { gate.queue }
        set { gate.queue = newValue }
    }

    /// `ENStatus.unknown` before activation; otherwise from the authorization, the enabled flag and Bluetooth.
    public var exposureNotificationStatus: ENStatus { state.withLock { Self.status($0) } }

    /// Whether Exposure Notification is enabled (`false` before activation).
    public var exposureNotificationEnabled: Bool { state.withLock { $0.activated && $0.enabled } }

    /// The scripted authorization.
    public var authorizationStatus: ENAuthorizationStatus { state.withLock { $0.script.authorizationStatus } }

    /// Called once when ``invalidate()`` completes.
    public var invalidationHandler: (() -> Void)? {
        get { state.withLock { $0.invalidationHandler.value } }
        set {
            let handler = Unchecked(newValue)
            state.withLock { $0.invalidationHandler = handler }
        }
    }

    /// Called by ``runPeriodicActivity()``.
    public var activityHandler: ENActivityHandler? {
        get { state.withLock { $0.activityHandler.value } }
        set {
            let handler = Unchecked(newValue)
            state.withLock { $0.activityHandler = handler }
        }
    }

    /// Called with the keys of a pre-authorized release.
    public var diagnosisKeysAvailableHandler: ENDiagnosisKeysAvailableHandler? {
        get { state.withLock { $0.keysHandler.value } }
        set {
            let handler = Unchecked(newValue)
            state.withLock { $0.keysHandler = handler }
        }
    }

    /// The status as a sequence: the current value, then each change, until invalidation.
    public func statusUpdates() -> AsyncStream<ENStatusUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: ENStatusUpdate.self)
        state.withLock { state in
            guard !state.invalidated else { return continuation.finish() }
            continuation.yield(Self.update(state))
            state.observers.append(continuation)
        }
        return stream
    }

    /// Launches the app for periodic work: calls ``activityHandler`` with `ENActivityFlags.periodicRun` on the
    /// dispatch queue, as the system's scheduler would.
    public func runPeriodicActivity() {
        guard let handler = state.withLock({ $0.activityHandler }).value else { return }
        let delivered = Unchecked(handler)
        gate.post { delivered.value(.periodicRun) }
    }

    /// Activates the double; a second call is `apiMisuse`.
    public func activate() async throws(ENError) {
        try await operation(.activate, requiresActivation: false) { state throws(ENError) in
            guard !state.activated else { throw ENError(.apiMisuse, "activate was already called") }
            state.activated = true
        }
    }

    /// Invalidates the double.
    public func invalidate() {
        let (handler, observers) = state.withLock { state in
            state.invalidated = true
            let handler = state.invalidationHandler.value
            state.invalidationHandler = Unchecked(nil)
            defer { state.observers = [] }
            return (Unchecked(handler), state.observers)
        }
        for observer in observers { observer.finish() }
        gate.invalidate(then: handler.value)
    }

    /// Runs `operation` and delivers its result on the dispatch queue.
    public func deliver<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws(ENError) -> Value,
        to completion: @escaping (Result<Value, ENError>) -> Void
    ) {
        gate.deliver(operation, to: completion)
    }

    /// Enables or disables; the first enable with an unknown authorization takes ``Script/userConsents``.
    public func setExposureNotificationEnabled(_ enabled: Bool) async throws(ENError) {
        try await operation(.setExposureNotificationEnabled) { state throws(ENError) in
            if enabled {
                switch state.script.authorizationStatus {
                case .authorized: break
                case .restricted: throw ENError(.restricted, "scripted: restricted")
                case .notAuthorized: throw ENError(.notAuthorized, "scripted: not authorized")
                case .unknown:
                    state.script.authorizationStatus = state.script.userConsents ? .authorized : .notAuthorized
                    guard state.script.userConsents else { throw ENError(.notAuthorized, "scripted: user refused") }
                }
            }
            state.enabled = enabled
        }
    }

    /// The scripted diagnosis keys, when authorized and the user consents.
    public func getDiagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey] {
        try await operation(.getDiagnosisKeys) { state throws(ENError) in
            try Self.requireConsent(state)
            return state.script.diagnosisKeys
        }
    }

    /// The scripted test keys; `notEntitled` without ``Script/testEntitlement``.
    public func getTestDiagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey] {
        try await operation(.getTestDiagnosisKeys) { state throws(ENError) in
            guard state.script.testEntitlement else { throw ENError(.notEntitled, "scripted: no test entitlement") }
            try Self.requireConsent(state)
            return state.script.testDiagnosisKeys
        }
    }

    /// Records the pre-authorization when the user consents; `notEnabled` while disabled.
    public func preAuthorizeDiagnosisKeys() async throws(ENError) {
        try await operation(.preAuthorizeDiagnosisKeys) { state throws(ENError) in
            guard state.enabled else { throw ENError(.notEnabled, "scripted: not enabled") }
            try Self.requireConsent(state)
            state.preAuthorized = true
            state.released = false
        }
    }

    /// Releases the scripted keys once through ``diagnosisKeysAvailableHandler``.
    public func requestPreAuthorizedDiagnosisKeys() async throws(ENError) {
        let release: (Unchecked<ENDiagnosisKeysAvailableHandler>, [ENTemporaryExposureKey])? = try await operation(
            .requestPreAuthorizedDiagnosisKeys
        ) { state throws(ENError) in
            guard let handler = state.keysHandler.value else {
                throw ENError(.apiMisuse, "set diagnosisKeysAvailableHandler first")
            }
            guard state.preAuthorized else { throw ENError(.notAuthorized, "scripted: not pre-authorized") }
            guard !state.released else { return nil }
            state.released = true
            return (Unchecked(handler), state.script.diagnosisKeys)
        }
        if let (handler, keys) = release {
            let delivered = Unchecked(keys)
            gate.post { handler.value(delivered.value) }
        }
    }

    /// The scripted travel status, or `travelStatusNotAvailable`.
    public func getUserTraveled() async throws(ENError) -> Bool {
        try await operation(.getUserTraveled) { state throws(ENError) in
            guard let traveled = state.script.userTraveled else {
                throw ENError(.travelStatusNotAvailable, "scripted: not available")
            }
            return traveled
        }
    }

    /// The scripted summary, once activated, authorized and enabled (`notAuthorized`, `notEnabled` otherwise).
    public func detectExposures(
        configuration: ENExposureConfiguration, diagnosisKeyURLs: [URL]
    ) async throws(ENError) -> ENExposureDetectionSummary {
        try await operation(.detectExposures) { state throws(ENError) in
            try Self.requireEnabled(state)
            return state.script.detectionSummary
        }
    }

    /// The scripted summary, as ``detectExposures(configuration:diagnosisKeyURLs:)``.
    public func detectExposures(
        configuration: ENExposureConfiguration
    ) async throws(ENError) -> ENExposureDetectionSummary {
        try await detectExposures(configuration: configuration, diagnosisKeyURLs: [])
    }

    /// The scripted windows.
    public func getExposureWindows(summary: ENExposureDetectionSummary) async throws(ENError) -> [ENExposureWindow] {
        try await operation(.getExposureWindows) { state throws(ENError) in state.script.exposureWindows }
    }

    /// The scripted exposures.
    public func getExposureInfo(
        summary: ENExposureDetectionSummary, userExplanation: String
    ) async throws(ENError) -> [ENExposureInfo] {
        try await operation(.getExposureInfo) { state throws(ENError) in state.script.exposureInfo }
    }

    // MARK: Internals

    private func operation<Value: Sendable>(
        _ operation: Operation, requiresActivation: Bool = true,
        _ body: @escaping @Sendable (inout State) throws(ENError) -> Value
    ) async throws(ENError) -> Value {
        try await gate.run { () throws(ENError) -> Value in
            let (result, observers, update):
                (Result<Value, ENError>, [AsyncStream<ENStatusUpdate>.Continuation], ENStatusUpdate) =
                    self.state.withLock { state in
                        state.calls.append(operation)
                        let before = Self.update(state)
                        let result: Result<Value, ENError>
                        if state.invalidated {
                            result = .failure(ENCompletionGate.invalidatedError)
                        } else if requiresActivation && !state.activated {
                            result = .failure(ENError(.apiMisuse, "call activate first"))
                        } else if let error = state.script.errors[operation] {
                            result = .failure(error)
                        } else {
                            do throws(ENError) { result = .success(try body(&state)) } catch {
                                result = .failure(error)
                            }
                        }
                        let after = Self.update(state)
                        return (result, before == after ? [] : state.observers, after)
                    }
            for observer in observers { observer.yield(update) }
            ENStatusChanges.post()
            return try result.get()
        }
    }

    private static func requireEnabled(_ state: State) throws(ENError) {
        guard state.script.authorizationStatus == .authorized else {
            throw ENError(.notAuthorized, "scripted: not authorized")
        }
        guard state.enabled else { throw ENError(.notEnabled, "scripted: not enabled") }
    }

    private static func requireConsent(_ state: State) throws(ENError) {
        guard state.script.authorizationStatus == .authorized else {
            throw ENError(.notAuthorized, "scripted: not authorized")
        }
        guard state.script.userConsents else { throw ENError(.notAuthorized, "scripted: user refused") }
    }

    private static func status(_ state: State) -> ENStatus {
        guard state.activated else { return .unknown }
        switch state.script.authorizationStatus {
        case .restricted: return .restricted
        case .notAuthorized: return .unauthorized
        case .unknown, .authorized:
            return !state.enabled ? .disabled : state.script.bluetoothOn ? .active : .bluetoothOff
        }
    }

    private static func update(_ state: State) -> ENStatusUpdate {
        ENStatusUpdate(
            status: status(state), enabled: state.activated && state.enabled,
            authorizationStatus: state.script.authorizationStatus)
    }
}
