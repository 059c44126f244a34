public import ENCore
public import Foundation

/// Where a verification server keeps its codes, tokens and API keys.
///
/// Each claim is one atomic step: of any number of concurrent claims of one code or one token, by any number of
/// connections or processes on one database, at most one succeeds. An implementation runs a claim as one
/// transaction that reads the row and updates it only if the checks pass (SQLite: `BEGIN IMMEDIATE`;
/// PostgreSQL: `SELECT … FOR UPDATE`, as Google's server, or a conditional `UPDATE`).
public protocol ENVerificationStorage: Sendable {
    /// Stores a new code.
    ///
    /// - Returns: whether it was stored, or which unique value is taken (the handler draws the codes again on a
    ///   collision, and answers `uuid_already_exists` for a taken UUID).
    func insertCode(_ record: ENVerificationCodeRecord) async throws(ENError) -> ENVerificationCodeInsertion

    /// Exchanges a code for a token, atomically: finds the code whose short or long HMAC is one of `hmacs`; it
    /// must not have expired by `now` (the short code against its expiry, the long code against the long one),
    /// must be unclaimed and of a type in `accepting`; then marks it claimed and stores the token `tokenID`
    /// (expiring at `tokenExpiresAt`, with the code's subject) in the same transaction. Checks in Google's order:
    /// expired, claimed, type.
    func claimCode(
        hmacs: [String], accepting: Set<ENVerificationTestType>, now: Date, tokenID: String, tokenExpiresAt: Date
    ) async throws(ENError) -> ENVerificationCodeClaim

    /// Marks a token used, atomically: it must exist, not have expired by `now`, be unused, and have `subject`.
    func claimToken(id: String, subject: ENVerificationSubject, now: Date) async throws(ENError)
        -> ENVerificationTokenClaim

    /// The code with this UUID.
    func code(uuid: String) async throws(ENError) -> ENVerificationCodeRecord?

    /// Expires the code with this UUID now, as Google's `ExpireCode`: an already expired code is returned
    /// unchanged; a claimed code is refused; otherwise both expiries become `now`.
    func expireCode(uuid: String, now: Date) async throws(ENError) -> ENVerificationCodeExpiry

    /// Google's cleanup: forgets the codes of entries whose short and long codes both expired before
    /// `recyclingCodesBefore` (their status stays), deletes entries both of whose codes expired before
    /// `deletingCodesBefore`, and tokens that expired before `deletingTokensBefore`.
    func deleteExpired(
        recyclingCodesBefore: Date, deletingCodesBefore: Date, deletingTokensBefore: Date
    ) async throws(ENError) -> ENVerificationCleanup

    /// Stores an API key; `false` when its name is taken.
    func insertAPIKey(_ record: ENVerificationAPIKeyRecord) async throws(ENError) -> Bool

    /// The API key stored under one of `hmacs`.
    func apiKey(hmacs: [String]) async throws(ENError) -> ENVerificationAPIKeyRecord?
}

/// The outcome of ``ENVerificationStorage/insertCode(_:)``.
public enum ENVerificationCodeInsertion: Hashable, Sendable {
    /// Stored.
    case inserted
    /// Another code has this UUID.
    case uuidTaken
    /// Another code has the same short or long code.
    case codeTaken
}

/// The outcome of ``ENVerificationStorage/claimCode(hmacs:accepting:now:tokenID:tokenExpiresAt:)``.
public enum ENVerificationCodeClaim: Hashable, Sendable {
    /// No such code.
    case notFound
    /// The code entered has expired.
    case expired
    /// The code was claimed before.
    case used
    /// The code's type is not accepted; the code stays unclaimed.
    case unsupportedTestType
    /// Claimed: the stored token.
    case claimed(ENVerificationTokenRecord)
}

/// The outcome of ``ENVerificationStorage/claimToken(id:subject:now:)``.
public enum ENVerificationTokenClaim: Hashable, Sendable {
    /// No such token.
    case notFound
    /// The token has expired.
    case expired
    /// The token was used before.
    case used
    /// The token's stored subject differs from the JWT's.
    case subjectMismatch
    /// Claimed.
    case claimed
}

/// The outcome of ``ENVerificationStorage/expireCode(uuid:now:)``.
public enum ENVerificationCodeExpiry: Hashable, Sendable {
    /// No such code.
    case notFound
    /// The code was claimed: it cannot be expired.
    case claimed
    /// The code as it now is (expired now, or unchanged when it had expired already).
    case expired(ENVerificationCodeRecord)
}

/// What ``ENVerificationStorage/deleteExpired(recyclingCodesBefore:deletingCodesBefore:deletingTokensBefore:)``
/// did.
public struct ENVerificationCleanup: Hashable, Sendable {
    /// Codes whose HMACs were forgotten.
    public var recycledCodes: Int
    /// Codes deleted.
    public var deletedCodes: Int
    /// Tokens deleted.
    public var deletedTokens: Int

    /// Creates a summary.
    public init(recycledCodes: Int, deletedCodes: Int, deletedTokens: Int) {
        self.recycledCodes = recycledCodes
        self.deletedCodes = deletedCodes
        self.deletedTokens = deletedTokens
    }
}
