public import ENCore
public import ENCrypto
public import Foundation

/// Checks the certificates of Google's verification server (exposure-notifications-verification-server) as
/// Google's key server does (`internal/verification/phaverify.go`, golang-jwt v3).
///
/// A certificate is an ES256 JWT: the signature must be the 64-byte raw `r || s` (DER is refused); the header
/// must have a `kid`; `iss` names one of ``healthAuthorities``, whose `aud` must match exactly and whose key
/// with version `kid` must be valid now; `exp` (optional), `iat` and `nbf` are checked to the second without
/// leeway; `reportType` must be `confirmed`, `likely`, `negative` or `user-report`; and `tekmac` must be the
/// HMAC-SHA256, keyed with the request's `hmacKey`, of the request's keys sorted by their base64 text, each
/// written `key.rollingStartNumber.rollingPeriod.transmissionRisk` and joined with `,` (or, when every
/// transmission risk is 0, each written without `.transmissionRisk`).
public struct ENVerificationCertificateVerifier: ENPublishCertificateVerifier {
    /// A health authority that issues certificates (Google's `HealthAuthority`).
    public struct HealthAuthority: Sendable {
        /// The issuer, the certificates' `iss`.
        public var issuer: String
        /// The audience the certificates must name in `aud`.
        public var audience: String
        /// Its signing keys.
        public var keys: [Key]

        /// Creates a health authority.
        public init(issuer: String, audience: String, keys: [Key]) {
            self.issuer = issuer
            self.audience = audience
            self.keys = keys
        }
    }

    /// One signing key of a health authority (Google's `HealthAuthorityKey`).
    public struct Key: Sendable {
        /// The key's version, the certificates' header `kid`.
        public var version: String
        /// The public key.
        public var publicKey: P256VerifyingKey
        /// From when the key is valid (exclusive, as Google's `From.Before(now)`).
        public var validFrom: Date
        /// Until when the key is valid (exclusive); `nil` for no end.
        public var validUntil: Date?

        /// Creates a key.
        public init(
            version: String, publicKey: P256VerifyingKey, validFrom: Date = .distantPast, validUntil: Date? = nil
        ) {
            self.version = version
            self.publicKey = publicKey
            self.validFrom = validFrom
            self.validUntil = validUntil
        }
    }

    /// The health authorities whose certificates the app accepts.
    public var healthAuthorities: [HealthAuthority]

    /// Creates a verifier accepting the certificates of `healthAuthorities`.
    public init(healthAuthorities: [HealthAuthority]) {
        self.healthAuthorities = healthAuthorities
    }

    /// Checks the request's certificate and returns its claims.
    ///
    /// - Throws: `ENError.Code.badFormat` for a certificate that is not a JWT (or a claim of the wrong JSON
    ///   type, `tekmac` or `hmacKey` not base64); `ENError.Code.notAuthorized` for every other refusal, with
    ///   `context.field` naming what failed (`alg`, `kid`, `iss`, `aud`, `signature`, `exp`, `iat`, `nbf`,
    ///   `reportType`, `tekmac`).
    public func verify(_ request: ENPublishRequest, at date: Date) async throws(ENError) -> ENVerifiedClaims? {
        try claims(of: request, at: date)
    }

    /// The synchronous check behind ``verify(_:at:)``; package-visible for the fuzz targets.
    package func claims(of request: ENPublishRequest, at date: Date) throws(ENError) -> ENVerifiedClaims {
        func refuse(_ field: String, _ reason: String) -> ENError {
            ENError(.notAuthorized, "verification certificate: \(reason)", context: .init(field: field))
        }
        let token = try VerificationCertificate(request.verificationPayload)
        guard token.algorithm == "ES256" else {
            throw refuse("alg", "unsupported signing method \(token.algorithm ?? "(none)"), must be ES256")
        }
        guard token.hasKeyID else { throw refuse("kid", "missing required header field, 'kid' indicating key id") }
        guard let authority = healthAuthorities.first(where: { $0.issuer == token.issuer }) else {
            throw refuse("iss", "issuer not found: \(token.issuer)")
        }
        guard token.audience == authority.audience else {
            throw refuse(
                "aud", "audience mismatch for issuer: \(authority.issuer) (+\(token.audience), -\(authority.audience))")
        }
        guard
            let key = authority.keys.first(where: { key in
                key.version == token.keyID && key.validFrom < date && (key.validUntil.map { date < $0 } ?? true)
            })
        else {
            throw refuse("kid", "no valid public key with version \(token.keyID ?? "(not a string)")")
        }
        let now = Int64((date.timeIntervalSince1970).rounded(.down))
        if token.expiresAt != 0 && now > token.expiresAt { throw refuse("exp", "token is expired") }
        if token.issuedAt != 0 && now < token.issuedAt { throw refuse("iat", "token used before issued") }
        if token.notBefore != 0 && now < token.notBefore { throw refuse("nbf", "token is not valid yet") }
        guard token.signature.count == 64, let signature = try? P256Signature(rawRepresentation: token.signature),
            key.publicKey.isValidSignature(signature, for: token.signingInput)
        else {
            throw refuse("signature", "crypto/ecdsa: verification error")
        }
        guard let reportType = Self.reportTypes[token.reportType] else {
            throw refuse("reportType", "invalid report type: \"\(token.reportType)\"")
        }
        guard case .success(let mac) = GoBase64.decode(token.tekmac) else {
            throw .badFormat("error decoding HMAC from claims", context: .init(field: "tekmac"))
        }
        guard case .success(let secret) = GoBase64.decode(request.hmacKey) else {
            throw .badFormat("error decoding HMAC secret from publish request", context: .init(field: "hmacKey"))
        }
        guard !request.temporaryExposureKeys.isEmpty else {
            throw refuse("tekmac", "cannot calculate hmac on empty exposure keys")
        }
        let valid = Self.acceptedTexts(of: request.temporaryExposureKeys).contains { text in
            HMAC.isValidAuthenticationCode(mac, for: Data(text.utf8), using: secret)
        }
        guard valid else {
            throw refuse("tekmac", "HMAC mismatch, publish request does not match disgnosis verification certificate")
        }
        return ENVerifiedClaims(reportType: reportType, symptomOnsetInterval: token.symptomOnsetInterval)
    }

    /// Google's report types (`pkg/api/v1/verification_types.go`).
    static let reportTypes: [String: ENDiagnosisReportType] = [
        "confirmed": .confirmedTest, "likely": .confirmedClinicalDiagnosis, "negative": .revoked,
        "user-report": .selfReported,
    ]

    /// The texts whose HMAC a certificate may carry (`CalculateAllAllowedExposureKeyHMAC`): the keys sorted by
    /// their base64 text (byte order), with the transmission risk, and without it when every risk is 0.
    static func acceptedTexts(of keys: [ENPublishExposureKey]) -> [String] {
        let sorted = keys.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        let full = sorted.map { "\($0.key).\($0.rollingStartNumber).\($0.rollingPeriod).\($0.transmissionRisk)" }
        guard keys.allSatisfy({ $0.transmissionRisk == 0 }) else { return [full.joined(separator: ",")] }
        let short = sorted.map { "\($0.key).\($0.rollingStartNumber).\($0.rollingPeriod)" }
        return [full.joined(separator: ","), short.joined(separator: ",")]
    }
}
