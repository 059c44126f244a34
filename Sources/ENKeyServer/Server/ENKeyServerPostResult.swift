/// What a post of diagnosis keys changed on a key server.
public struct ENKeyServerPostResult: Hashable, Sendable {
    /// Keys not stored before, now stored.
    public var accepted: Int
    /// Keys already stored with the same report type (or a revision already made), ignored.
    public var duplicates: Int
    /// Stored keys (same key data) posted with another report type that Google's transitions allow: exported
    /// again as revised keys.
    public var revised: Int
    /// Keys the per-key rules left out (invalid, too old, in the future, days since onset too far), as Google's
    /// `partial_failure` leaves them out.
    public var rejected: Int
    /// Why keys were left out, in Google's words; `nil` when none was.
    public var reason: String?

    /// Creates a result.
    public init(accepted: Int = 0, duplicates: Int = 0, revised: Int = 0, rejected: Int = 0, reason: String? = nil) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.revised = revised
        self.rejected = rejected
        self.reason = reason
    }
}
