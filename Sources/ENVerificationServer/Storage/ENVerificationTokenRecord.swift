public import Foundation

/// A token as stored (Google's `Token`): its random ID (the JWT's `jti`), its code's subject, whether it was
/// used, its expiry.
public struct ENVerificationTokenRecord: Hashable, Sendable {
    /// The token ID: 96 random bytes, base64 without padding.
    public var tokenID: String
    /// What the token certifies.
    public var subject: ENVerificationSubject
    /// Whether a certificate was issued for it.
    public var used: Bool
    /// When it expires (expired from this instant on).
    public var expiresAt: Date

    /// Creates a record.
    public init(tokenID: String, subject: ENVerificationSubject, used: Bool = false, expiresAt: Date) {
        self.tokenID = tokenID
        self.subject = subject
        self.used = used
        self.expiresAt = expiresAt
    }
}
