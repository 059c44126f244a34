public import ENCore
public import Foundation

/// A verified key file that a detection caches for later detections: its `export.bin`, stored whole.
///
/// iOS 13.7+ keeps the diagnosis keys it receives for 14 days and matches the whole window at each
/// detection; the store keeps them as the files they came in (one row per file, not per key), written by
/// ``ENStoreUpdate/recordDetection(_:)`` and read back one file at a time with `ENStoreQuery.cachedKeyFile(_:)`.
/// The caller verifies the file (its signature) before caching it; the store does not parse it.
public struct ENCachedKeyFile: Sendable {
    /// The file's identity: the SHA-256 of its `export.bin` (32 bytes).
    public var hash: Data
    /// Reads the `export.bin` when the detection is written (so a detection over many files never holds them all).
    ///
    /// It is called at most once, inside the detection's transaction, and not at all when a file with the same
    /// hash is already cached; an error it throws aborts the whole detection.
    public var exportBinary: @Sendable () throws(ENError) -> Data

    /// Creates a cached key file whose `export.bin` is read by `exportBinary` when the detection is written.
    public init(hash: Data, exportBinary: @escaping @Sendable () throws(ENError) -> Data) {
        self.hash = hash
        self.exportBinary = exportBinary
    }

    /// Creates a cached key file from its `export.bin` in memory.
    public init(hash: Data, exportBinary: Data) {
        self.init(hash: hash, exportBinary: { () throws(ENError) in exportBinary })
    }
}
