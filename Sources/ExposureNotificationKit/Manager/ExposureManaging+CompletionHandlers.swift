public import ENCore
public import Foundation

/// Apple's completion-handler forms, written once for every ``ExposureManaging``.
extension ExposureManaging {
    /// Activates the manager; `completionHandler` gets `nil` or the error, on ``dispatchQueue``.
    public func activate(completionHandler: @escaping ENErrorHandler) {
        deliver({ () async throws(ENError) in try await self.activate() }) { completionHandler($0.error) }
    }

    /// Enables or disables Exposure Notification; `completionHandler` gets `nil` or the error.
    public func setExposureNotificationEnabled(_ enabled: Bool, completionHandler: @escaping ENErrorHandler) {
        deliver({ () async throws(ENError) in try await self.setExposureNotificationEnabled(enabled) }) {
            completionHandler($0.error)
        }
    }

    /// The keys of the past 14 days, after asking the user; `completionHandler` gets the keys or the error.
    public func getDiagnosisKeys(completionHandler: @escaping ENGetDiagnosisKeysHandler) {
        deliver({ () async throws(ENError) in try await self.getDiagnosisKeys() }) {
            completionHandler($0.value, $0.error)
        }
    }

    /// The keys of the past 14 days and the current key; `completionHandler` gets the keys or the error.
    public func getTestDiagnosisKeys(completionHandler: @escaping ENGetDiagnosisKeysHandler) {
        deliver({ () async throws(ENError) in try await self.getTestDiagnosisKeys() }) {
            completionHandler($0.value, $0.error)
        }
    }

    /// Asks the user to pre-authorize one release of the keys; `completionHandler` gets `nil` or the error.
    public func preAuthorizeDiagnosisKeys(completionHandler: @escaping ENErrorHandler) {
        deliver({ () async throws(ENError) in try await self.preAuthorizeDiagnosisKeys() }) {
            completionHandler($0.error)
        }
    }

    /// Releases the keys under the pre-authorization through ``diagnosisKeysAvailableHandler``;
    /// `completionHandler` gets `nil` or the error.
    public func requestPreAuthorizedDiagnosisKeys(completionHandler: @escaping ENErrorHandler) {
        deliver({ () async throws(ENError) in try await self.requestPreAuthorizedDiagnosisKeys() }) {
            completionHandler($0.error)
        }
    }

    /// Whether the user traveled; `completionHandler` gets the answer or the error.
    public func getUserTraveled(completionHandler: @escaping ENGetUserTraveledHandler) {
        deliver({ () async throws(ENError) in try await self.getUserTraveled() }) {
            completionHandler($0.value ?? false, $0.error)
        }
    }
}

extension ExposureManaging {
    /// Detects exposures in the key files and the cached keys; `completionHandler` gets the summary or the
    /// error. Cancelling the returned `Progress` ends the detection with `ENError.Code.invalidated` and nothing
    /// stored.
    @discardableResult
    public func detectExposures(
        configuration: ENExposureConfiguration, diagnosisKeyURLs: [URL],
        completionHandler: @escaping ENDetectExposuresHandler
    ) -> Progress {
        deliverWithProgress({ () async throws(ENError) in
            try await self.detectExposures(configuration: configuration, diagnosisKeyURLs: diagnosisKeyURLs)
        }) { completionHandler($0.value, $0.error) }
    }

    /// Detects exposures in the cached keys (API version 2); `completionHandler` gets the summary or the error.
    @discardableResult
    public func detectExposures(
        configuration: ENExposureConfiguration, completionHandler: @escaping ENDetectExposuresHandler
    ) -> Progress {
        deliverWithProgress({ () async throws(ENError) in
            try await self.detectExposures(configuration: configuration)
        }) { completionHandler($0.value, $0.error) }
    }

    /// The exposure windows of the detection that returned `summary` (API version 2).
    @discardableResult
    public func getExposureWindows(
        summary: ENExposureDetectionSummary, completionHandler: @escaping ENGetExposureWindowsHandler
    ) -> Progress {
        deliverWithProgress({ () async throws(ENError) in try await self.getExposureWindows(summary: summary) }) {
            completionHandler($0.value, $0.error)
        }
    }

    /// The exposures of the detection that returned `summary` (API version 1), after notifying the user with
    /// `userExplanation`.
    @discardableResult
    public func getExposureInfo(
        summary: ENExposureDetectionSummary, userExplanation: String,
        completionHandler: @escaping ENGetExposureInfoHandler
    ) -> Progress {
        deliverWithProgress({ () async throws(ENError) in
            try await self.getExposureInfo(summary: summary, userExplanation: userExplanation)
        }) { completionHandler($0.value, $0.error) }
    }

    /// ``deliver(_:to:)`` with a `Progress` whose cancellation cancels the operation: it then ends with
    /// `ENError.Code.invalidated` unless it had already finished.
    private func deliverWithProgress<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws(ENError) -> Value,
        to completion: @escaping (Result<Value, ENError>) -> Void
    ) -> Progress {
        let progress = Progress(totalUnitCount: 1)
        let box = Unchecked(progress)
        deliver(
            { () async throws(ENError) -> Value in
                let task = Task { () async throws -> Value in try await operation() }
                box.value.cancellationHandler = { task.cancel() }
                if box.value.isCancelled { task.cancel() }
                let result = await withTaskCancellationHandler {
                    await task.result
                } onCancel: {
                    task.cancel()
                }
                switch result {
                case .success(let value):
                    box.value.completedUnitCount = 1
                    return value
                case .failure(let error as ENError): throw error
                case .failure(let error): throw ENError(.internal, "unexpected error: \(error)")
                }
            }, to: completion)
        return progress
    }
}

extension Result where Failure == ENError {
    /// The success value, or `nil`.
    var value: Success? { if case .success(let value) = self { value } else { nil } }
    /// The failure, or `nil`.
    var error: ENError? { if case .failure(let error) = self { error } else { nil } }
}
