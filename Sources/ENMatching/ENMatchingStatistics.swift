/// What a matching run did, for logs and benchmarks.
public struct ENMatchingStatistics: Hashable, Sendable {
    /// Keys read from the input, duplicates and ignored keys included.
    public var keysReceived: Int = 0
    /// Keys ignored because their rolling period is 0 or above 144, or their key data is not 16 bytes.
    public var keysIgnored: Int = 0
    /// Keys with report type `ENDiagnosisReportType.revoked`; they never match, and they cancel
    /// matches of the same key data elsewhere in the input.
    public var keysRevoked: Int = 0
    /// Keys whose identifiers were derived; the others had no observation within their validity +-12 intervals.
    public var keysDerived: Int = 0
    /// Identifiers derived for those keys: only the intervals from 12 before a key's first nearby sighting to
    /// 12 after its last are derived (at most 144 per key), as no other interval can match.
    public var identifiersDerived: Int = 0
    /// Matched occurrences dropped because an earlier occurrence of the same key data matched (or because the
    /// key was revoked).
    public var matchesDropped: Int = 0
    /// Distinct observed identifiers in the index.
    public var distinctIdentifiers: Int = 0
    /// The kernel that derived the identifiers.
    public var kernel: ENMatchingKernel = .portable
    /// The number of threads used.
    public var threadCount: Int = 1

    /// Creates empty statistics.
    public init() {}
}
