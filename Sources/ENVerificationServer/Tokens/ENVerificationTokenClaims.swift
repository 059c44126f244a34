internal import Foundation

/// The claims of a verification token (golang-jwt v3's `StandardClaims`, as Google's `/api/verify` fills them):
/// `aud` and `iss` the token issuer, `exp`, `jti` the token ID, `iat`, `sub` the subject; each omitted when
/// empty or 0, in this order.
public struct ENVerificationTokenClaims: Hashable, Sendable {
    /// `aud`.
    public var audience: String
    /// `exp`, Unix seconds.
    public var expiresAt: Int64
    /// `jti`, the stored token's ID.
    public var tokenID: String
    /// `iat`, Unix seconds.
    public var issuedAt: Int64
    /// `iss`.
    public var issuer: String
    /// `nbf`, Unix seconds (Google's tokens have none).
    public var notBefore: Int64
    /// `sub`, ``ENVerificationSubject`` as text.
    public var subject: String

    /// Creates claims.
    public init(
        audience: String, expiresAt: Int64, tokenID: String, issuedAt: Int64, issuer: String, notBefore: Int64 = 0,
        subject: String
    ) {
        self.audience = audience
        self.expiresAt = expiresAt
        self.tokenID = tokenID
        self.issuedAt = issuedAt
        self.issuer = issuer
        self.notBefore = notBefore
        self.subject = subject
    }

    /// Reads the claims of a token whose signature checked out; `nil` when a claim has the wrong JSON type
    /// (golang-jwt refuses such a token).
    init?(json claims: [String: Any]) {
        func string(_ name: String) -> String?? {
            guard let value = claims[name] else { return .some(nil) }
            return value as? String
        }
        func integer(_ name: String) -> Int64?? {
            guard let value = claims[name] else { return .some(nil) }
            return Self.exactInteger(value)
        }
        guard case .some(let audience) = string("aud"), case .some(let tokenID) = string("jti"),
            case .some(let issuer) = string("iss"), case .some(let subject) = string("sub"),
            case .some(let expiresAt) = integer("exp"), case .some(let issuedAt) = integer("iat"),
            case .some(let notBefore) = integer("nbf")
        else { return nil }
        self.init(
            audience: audience ?? "", expiresAt: expiresAt ?? 0, tokenID: tokenID ?? "", issuedAt: issuedAt ?? 0,
            issuer: issuer ?? "", notBefore: notBefore ?? 0, subject: subject ?? "")
    }

    /// A JSON number that is an integer, as Go reads one into an `int64`; `nil` for anything else.
    static func exactInteger(_ value: Any) -> Int64? {
        guard !(value is Bool), let number = value as? NSNumber else { return nil }
        let integer = number.int64Value
        return Double(integer) == number.doubleValue ? integer : nil
    }

    /// golang-jwt v3's `StandardClaims.Valid` at `now` (Unix seconds): `now <= exp`, `now >= iat`, `now >= nbf`,
    /// each only when set.
    func isValid(at now: Int64) -> Bool {
        (expiresAt == 0 || now <= expiresAt) && (issuedAt == 0 || now >= issuedAt)
            && (notBefore == 0 || now >= notBefore)
    }

    var goJSONMembers: [GoJSONValue.Member] {
        var members: [GoJSONValue.Member] = []
        if !audience.isEmpty { members.append(.init("aud", .string(audience))) }
        if expiresAt != 0 { members.append(.init("exp", .integer(expiresAt))) }
        if !tokenID.isEmpty { members.append(.init("jti", .string(tokenID))) }
        if issuedAt != 0 { members.append(.init("iat", .integer(issuedAt))) }
        if !issuer.isEmpty { members.append(.init("iss", .string(issuer))) }
        if notBefore != 0 { members.append(.init("nbf", .integer(notBefore))) }
        if !subject.isEmpty { members.append(.init("sub", .string(subject))) }
        return members
    }
}
