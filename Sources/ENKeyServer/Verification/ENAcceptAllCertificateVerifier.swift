public import ENCore
public import Foundation

/// A verifier that accepts every request and gives no claims: keys are stored without a report type and with
/// their transmission risk as sent (Google's server with certificate verification bypassed).
public struct ENAcceptAllCertificateVerifier: ENPublishCertificateVerifier {
    /// Creates the verifier.
    public init() {}

    /// Accepts the request without claims.
    public func verify(_ request: ENPublishRequest, at date: Date) async throws(ENError) -> ENVerifiedClaims? { nil }
}
