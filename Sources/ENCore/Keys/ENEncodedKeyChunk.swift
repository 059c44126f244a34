/// Keys still in their encoded form (the key messages of an `export.bin`, say), which ENMatching's threads decode
/// themselves, in parallel, into the kernel's records: the reading thread only finds where each key is.
///
/// The record of a key is 24 bytes: its 16 bytes of key data, then its rolling start and rolling period as
/// native `UInt32`s; a period of 0 marks a key to ignore (malformed, or older than the chunk keeps).
package protocol ENEncodedKeyChunk: Sendable {
    /// The number of keys in the chunk (ignored ones included).
    var count: Int { get }

    /// Writes the records of the keys at `positions` to `records` (the first key's record at `records`, the next
    /// 24 bytes on), and returns how many were ignored and how many carry report type `revoked`.
    func writeRecords(_ positions: Range<Int>, to records: UnsafeMutableRawPointer) -> (ignored: Int, revoked: Int)

    /// The key at `position`, decoded whole; `nil` for a key ``writeRecords(_:to:)`` ignores as malformed.
    func key(at position: Int) -> ENTemporaryExposureKey?
}

/// The layout of the records ``ENEncodedKeyChunk/writeRecords(_:to:)`` writes (ENMatching's kernel reads them as
/// they are).
package enum ENKeyRecord {
    /// The size of a record: 24 bytes.
    package static let stride = 24
    /// Where a record's rolling start is.
    package static let startOffset = 16
    /// Where a record's rolling period is.
    package static let periodOffset = 20
}
