public import ExposureNotificationKit

/// A consent provider that gives the same answer to every prompt: for tests, simulations and servers.
public struct ENFixedConsent: ENConsentProvider {
    /// The answer to every prompt.
    public var answer: Bool

    /// Creates a provider that answers `answer` to every prompt.
    public init(_ answer: Bool) { self.answer = answer }

    /// Answers ``answer``.
    public func authorizeExposureNotification() async -> Bool { answer }
    /// Answers ``answer``.
    public func releaseDiagnosisKeys() async -> Bool { answer }
    /// Answers ``answer``.
    public func preAuthorizeDiagnosisKeyRelease() async -> Bool { answer }
}
