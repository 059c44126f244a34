public import ENCore
public import Foundation

/// One export batch of a key server: the diagnosis keys and revisions published together, in one
/// or more export files.
public struct ENKeyServerBatch: Hashable, Sendable {
    /// The batch's index, from 0, in publishing order (the sample app's key-file index).
    public var index: Int
    /// When the batch was published.
    public var createdAt: Date
    /// The batch's new keys still kept, in arrival order.
    public var keys: [ENTemporaryExposureKey]
    /// The revisions published in the batch, in revision order: revised report type and days since onset, the
    /// original transmission risk level.
    public var revisedKeys: [ENTemporaryExposureKey]

    /// Creates a batch.
    public init(
        index: Int, createdAt: Date, keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey] = []
    ) {
        self.index = index
        self.createdAt = createdAt
        self.keys = keys
        self.revisedKeys = revisedKeys
    }
}
