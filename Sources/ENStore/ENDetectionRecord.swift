public import Foundation

/// Everything one successful exposure detection produced in the framework, written by
/// ``ENStoreUpdate/recordDetection(_:)`` in a single transaction: the result (an exposure check), the key files
/// it processed, the key files it cached and its rate-limit ledger entry.
///
/// What the app keeps of a detection (the next key-file index, the last detection date, its exposures) is
/// the app's own data, which it keeps in storage of its own.
///
/// `Result` is whatever the caller computed (a V1 summary with its exposure infos, a V2 summary with its
/// windows, an app's exposures...); it is stored as JSON, so any `Codable` type works.
public struct ENDetectionRecord<Result: Codable & Sendable>: Sendable {
    /// When the detection was computed; it becomes the last detection date.
    public var date: Date
    /// A label for the kind of result, for example `"v1"` or `"v2"`, used to select results when reading.
    public var kind: String
    /// The result.
    public var result: Result
    /// SHA-256 (or any content hash) of each key file the detection processed; each is recorded once.
    public var processedKeyFileHashes: [Data]
    /// The verified key files to cache for re-running detection (iOS 13.7+ behaviour), each stored whole; a
    /// file whose hash is already cached is kept as it was (its contents are not read again).
    public var cachedKeyFiles: [ENCachedKeyFile]
    /// Whether the detection adds an entry to the rate-limit ledger (default `true`).
    public var countsTowardRateLimit: Bool
    /// A limit to enforce against the ledger before anything is written, or `nil` for none.
    public var rateLimit: ENDetectionRateLimit?

    /// Creates a record.
    public init(
        date: Date,
        kind: String,
        result: Result,
        processedKeyFileHashes: [Data] = [],
        cachedKeyFiles: [ENCachedKeyFile] = [],
        countsTowardRateLimit: Bool = true,
        rateLimit: ENDetectionRateLimit? = nil
    ) {
        self.date = date
        self.kind = kind
        self.result = result
        self.processedKeyFileHashes = processedKeyFileHashes
        self.cachedKeyFiles = cachedKeyFiles
        self.countsTowardRateLimit = countsTowardRateLimit
        self.rateLimit = rateLimit
    }
}
