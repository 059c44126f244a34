public import Foundation

/// One published export file of a key server: its place in publication order, its name and its signed zip.
public struct ENKeyServerFile: Hashable, Sendable {
    /// The file's 0-based position in publication order (the sample app's key-file index). Indexes never
    /// repeat, even after retention drops old files.
    public var index: Int
    /// The file's name in the layout of Google's exposure-notifications-server: `START-END-NNNNN.zip`, with
    /// the batch's start and end in UTC seconds and the 1-based number of the file in its batch.
    public var name: String
    /// The index of the batch the file belongs to.
    public var batchIndex: Int
    /// The start of the batch's window, in UTC seconds.
    public var startTimestamp: UInt64
    /// The end of the batch's window, in UTC seconds (the file's own `end_timestamp` is this plus its 0-based
    /// number in the batch).
    public var endTimestamp: UInt64
    /// When the file was published.
    public var createdAt: Date
    /// The signed zip (`export.bin` and `export.sig`): the same bytes on every download.
    public var data: Data

    /// Creates a file record.
    public init(
        index: Int, name: String, batchIndex: Int, startTimestamp: UInt64, endTimestamp: UInt64, createdAt: Date,
        data: Data
    ) {
        self.index = index
        self.name = name
        self.batchIndex = batchIndex
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.createdAt = createdAt
        self.data = data
    }
}

extension ENKeyServerFile {
    /// Google's name of file `number` (1-based) of the batch from `start` to `end`: `START-END-NNNNN.zip`.
    package static func name(start: UInt64, end: UInt64, number: Int) -> String {
        let digits = String(number)
        return "\(start)-\(end)-\(String(repeating: "0", count: max(0, 5 - digits.count)))\(digits).zip"
    }
}
