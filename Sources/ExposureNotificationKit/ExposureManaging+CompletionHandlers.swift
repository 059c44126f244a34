internal import ENCore
internal import Foundation

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

extension Result where Failure == ENError {
    /// The success value, or `nil`.
    var value: Success? { if case .success(let value) = self { value } else { nil } }
    /// The failure, or `nil`.
    var error: ENError? { if case .failure(let error) = self { error } else { nil } }
}
