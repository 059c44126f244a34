/// How many records one run of `ENStore.deleteExpiredRecords(now:)` deleted, by kind.
public struct ENStoreExpiryReport: Hashable, Sendable {
    /// Own keys whose validity ended before the cut-off.
    public var ownKeys: Int = 0
    /// Sightings received before the cut-off.
    public var sightings: Int = 0
    /// Cached diagnosis keys cached, or valid, only before the cut-off.
    public var cachedDiagnosisKeys: Int = 0
    /// Processed key-file hashes recorded before the cut-off.
    public var processedKeyFiles: Int = 0
    /// Rate-limit ledger entries before the cut-off.
    public var ledgerEntries: Int = 0
    /// Detection results computed before the cut-off.
    public var detections: Int = 0

    /// Creates an empty report.
    public init() {}

    /// The total number of deleted records.
    public var total: Int { ownKeys + sightings + cachedDiagnosisKeys + processedKeyFiles + ledgerEntries + detections }
}
