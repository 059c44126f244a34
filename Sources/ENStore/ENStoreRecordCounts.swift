/// Numbers of records in an ``ENDeviceStore``, by kind: how many are stored (`ENStoreQuery.recordCounts`) or how
/// many one run of `ENStoreUpdate.deleteExpiredRecords(now:)` deleted.
public struct ENStoreRecordCounts: Hashable, Sendable {
    /// Own keys.
    public var ownKeys: Int = 0
    /// Sightings.
    public var sightings: Int = 0
    /// Cached key files.
    public var cachedKeyFiles: Int = 0
    /// Processed key-file hashes.
    public var processedKeyFiles: Int = 0
    /// Rate-limit ledger entries.
    public var ledgerEntries: Int = 0
    /// Detection results.
    public var detections: Int = 0

    /// Creates counts of zero.
    public init() {}

    /// The total number of records.
    public var total: Int { ownKeys + sightings + cachedKeyFiles + processedKeyFiles + ledgerEntries + detections }
}
