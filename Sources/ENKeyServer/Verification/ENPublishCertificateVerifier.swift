public import ENCore
public import Foundation

/// Checks the verification certificate of a publish request: a plug-in, so that a server can trust its own
/// verification server.
///
/// ``ENAcceptAllCertificateVerifier`` accepts every request without claims;
/// ``ENVerificationCertificateVerifier`` checks the ES256 certificates of Google's verification server.
public protocol ENPublishCertificateVerifier: Sendable {
    /// The certificate's claims, `nil` when the verifier accepts the request without claims.
    ///
    /// - Parameters:
    ///   - request: the whole request (certificate, HMAC secret, keys as sent).
    ///   - date: the server's current time.
    /// - Throws: an `ENError` naming why the certificate is refused; the request is then answered 401
    ///   `health_authority_verification_certificate_invalid`.
    func verify(_ request: ENPublishRequest, at date: Date) async throws(ENError) -> ENVerifiedClaims?
}
