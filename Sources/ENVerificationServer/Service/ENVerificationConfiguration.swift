public import ENCore
public import Foundation

/// The settings of the server's one realm and of the server, with the defaults of Google's realm
/// (`NewRealmWithDefaults`) and configuration.
public struct ENVerificationConfiguration: Sendable {
    /// The test types codes may be issued for (`confirmed`, `likely`, `negative`).
    public var allowedTestTypes: Set<ENVerificationTestType> = [.confirmed, .likely, .negative]
    /// Whether an issue request needs a symptom or a test date (yes, as Google's `RequireDate`).
    public var requiresDate = true
    /// Digits of a short code (8).
    public var codeLength = 8
    /// How long a short code is valid (15 minutes).
    public var codeDuration: TimeInterval = 15 * 60
    /// Characters of a long code (16); 0 makes the long code the short code.
    public var longCodeLength = 16
    /// How long a long code is valid (24 hours).
    public var longCodeDuration: TimeInterval = 24 * 3600
    /// How long a token is valid (24 hours, `VERIFICATION_TOKEN_DURATION`).
    public var tokenDuration: TimeInterval = 24 * 3600
    /// How long a certificate is valid (15 minutes).
    public var certificateDuration: TimeInterval = 15 * 60
    /// How far back a certificate's `iat` and `nbf` are set (5 seconds, `ALLOWED_CLOCK_SKEW`).
    public var allowedClockSkew: TimeInterval = 5
    /// How old a date may be (28 days, `ALLOWED_PAST_SYMPTOM_DAYS`).
    public var dateRule = ENVerificationDateRule()
    /// The tokens' `iss` and `aud` (`TOKEN_ISSUER`).
    public var tokenIssuer = "diagnosis-verification-example"
    /// The tokens' `kid`.
    public var tokenKeyID = "v1"
    /// The certificates' `iss` (`CERTIFICATE_ISSUER`), which the key server looks its health authority up by.
    public var certificateIssuer = "diagnosis-verification-example"
    /// The certificates' `aud` (`CERTIFICATE_AUDIENCE`).
    public var certificateAudience = "exposure-notifications-server"
    /// The certificates' `kid`, the key version the key server knows the public key by.
    public var certificateKeyID = "v1"
    /// Whether `batch-issue` is allowed (Google's `AllowBulkUpload`).
    public var allowsBulkIssue = true
    /// How many times a colliding code is drawn again (6, `COLLISION_RETRY_COUNT`).
    public var collisionRetryCount = 6

    /// How long after both its codes expired an entry keeps its codes' HMACs (48 hours,
    /// `VERIFICATION_CODE_MAX_AGE`).
    public var codeMaxAge: TimeInterval = 48 * 3600
    /// How long after both its codes expired an entry is kept at all, for its status (14 days,
    /// `VERIFICATION_CODE_STATUS_MAX_AGE`).
    public var codeStatusMaxAge: TimeInterval = 14 * 86_400
    /// How long after it expired a token is kept (24 hours, `VERIFICATION_TOKEN_MAX_AGE`).
    public var tokenMaxAge: TimeInterval = 24 * 3600

    /// The defaults.
    public init() {}

    /// Checks the settings.
    ///
    /// - Throws: `ENError.Code.badParameter` naming the first setting out of range.
    public func validate() throws(ENError) {
        let shortLengths = ENVerificationCodeGenerator.minimumLength...ENVerificationCodeGenerator.maximumShortLength
        guard shortLengths.contains(codeLength) else {
            throw .badParameter("the code length must be \(shortLengths.lowerBound)...\(shortLengths.upperBound)")
        }
        guard longCodeLength == 0 || (ENVerificationCodeGenerator.minimumLength...255).contains(longCodeLength) else {
            throw .badParameter("the long code length must be 0 or 6...255")
        }
        for (name, duration) in [
            ("code duration", codeDuration), ("long code duration", longCodeDuration),
            ("token duration", tokenDuration), ("certificate duration", certificateDuration),
            ("date maximum age", dateRule.maximumAge), ("code maximum age", codeMaxAge),
            ("code status maximum age", codeStatusMaxAge), ("token maximum age", tokenMaxAge),
        ] {
            guard duration > 0, duration.isFinite else { throw .badParameter("the \(name) must be positive") }
        }
        guard codeStatusMaxAge >= codeMaxAge else {
            throw .badParameter("the code status maximum age must be at least the code maximum age")
        }
        guard allowedClockSkew >= 0 else { throw .badParameter("the allowed clock skew must not be negative") }
        guard !allowedTestTypes.isEmpty else { throw .badParameter("no test type is allowed") }
        for (name, value) in [
            ("token issuer", tokenIssuer), ("token key ID", tokenKeyID), ("certificate issuer", certificateIssuer),
            ("certificate audience", certificateAudience), ("certificate key ID", certificateKeyID),
        ] {
            guard !value.isEmpty else { throw .badParameter("the \(name) is empty") }
        }
    }
}
