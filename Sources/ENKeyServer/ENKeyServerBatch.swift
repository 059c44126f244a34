public import ENCore
public import Foundation

/// One export batch of a key server: the diagnosis keys that went into the export file with ``index``.
public struct ENKeyServerBatch: Hashable, Sendable {
    /// The batch's index, from 0, in publishing order (the sample app's key-file index).
    public var index: Int
    /// When the batch was published.
    public var createdAt: Date
    /// The batch's keys, in arrival order.
    public var keys: [ENTemporaryExposureKey]

    /// Creates a batch.
    public init(index: Int, createdAt: Date, keys: [ENTemporaryExposureKey]) {
        self.index = index
        self.createdAt = createdAt
        self.keys = keys
    }
}
