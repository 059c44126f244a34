/// What a post of diagnosis keys changed on a key server.
public struct ENKeyServerPostResult: Hashable, Sendable {
    /// Keys not stored before, now stored.
    public var accepted: Int
    /// Keys already stored with the same report type and days since onset, ignored.
    public var duplicates: Int
    /// Keys already stored (same key data and rolling start), re-posted with another report type or days since
    /// onset: a revision, published as a revised key (or, when the key was not published yet, an update of it).
    public var revised: Int

    /// Creates a result.
    public init(accepted: Int = 0, duplicates: Int = 0, revised: Int = 0) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.revised = revised
    }
}
