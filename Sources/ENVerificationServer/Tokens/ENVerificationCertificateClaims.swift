public import ENCore
public import ENCrypto

/// The claims of a verification certificate (the key server's `VerificationClaims`: golang-jwt v3's
/// `StandardClaims`, then `reportType`, `symptomOnsetInterval` (omitted when 0) and `tekmac`), as Google's
/// `/api/certificate` fills them.
public struct ENVerificationCertificateClaims: Hashable, Sendable {
    /// `aud`, the key server's audience.
    public var audience: String
    /// `exp`, Unix seconds.
    public var expiresAt: Int64
    /// `iat`, Unix seconds (now minus the allowed clock skew).
    public var issuedAt: Int64
    /// `iss`, the health authority's issuer.
    public var issuer: String
    /// `nbf`, Unix seconds (as `iat`).
    public var notBefore: Int64
    /// `reportType`: `confirmed`, `likely`, `negative` or `user-report`.
    public var reportType: String
    /// `symptomOnsetInterval`: the symptom date's start in 10-minute intervals, 0 for none.
    public var symptomOnsetInterval: UInt32
    /// `tekmac`: the app's HMAC of its keys, base64, exactly as it sent it.
    public var tekmac: String

    /// Creates claims.
    public init(
        audience: String, expiresAt: Int64, issuedAt: Int64, issuer: String, notBefore: Int64, reportType: String,
        symptomOnsetInterval: UInt32, tekmac: String
    ) {
        self.audience = audience
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.issuer = issuer
        self.notBefore = notBefore
        self.reportType = reportType
        self.symptomOnsetInterval = symptomOnsetInterval
        self.tekmac = tekmac
    }

    /// The certificate: these claims as Google's verification server signs them, an ES256 JWT with `kid` `keyID`
    /// in its header, signed with `key`. `/api/certificate` signs this way; `entool certificate` too.
    ///
    /// - Throws: `ENError` when signing fails.
    public func signed(keyID: String, key: P256SigningKey) throws(ENError) -> String {
        try ENVerificationJWT.sign(claims: goJSONMembers, keyID: keyID, key: key)
    }

    var goJSONMembers: [GoJSONValue.Member] {
        var members: [GoJSONValue.Member] = []
        if !audience.isEmpty { members.append(.init("aud", .string(audience))) }
        if expiresAt != 0 { members.append(.init("exp", .integer(expiresAt))) }
        if issuedAt != 0 { members.append(.init("iat", .integer(issuedAt))) }
        if !issuer.isEmpty { members.append(.init("iss", .string(issuer))) }
        if notBefore != 0 { members.append(.init("nbf", .integer(notBefore))) }
        members.append(.init("reportType", .string(reportType)))
        if symptomOnsetInterval != 0 {
            members.append(.init("symptomOnsetInterval", .integer(Int64(symptomOnsetInterval))))
        }
        members.append(.init("tekmac", .string(tekmac)))
        return members
    }
}
