public import ENCore
public import Foundation

/// The keys of one claimed export batch, as `ENKeyServerStorage.exportBatchContents(_:)` reads them.
public struct ENKeyServerExportContents: Hashable, Sendable {
    /// The new keys, in arrival order.
    public var keys: [ENTemporaryExposureKey]
    /// The revisions, as they are published: the revised report type and days since onset, the original
    /// transmission risk level.
    public var revisedKeys: [ENTemporaryExposureKey]
    /// The latest arrival among ``keys`` (the date padding keys are stored with), `nil` when there is none.
    public var latestArrival: Date?
    /// The storage's highest key row when the contents were read: completing the batch marks only keys up to it
    /// as exported, so that a key arriving meanwhile waits for the next batch.
    public var lastKeyRow: Int64
    /// The origin of each key of ``keys`` and ``revisedKeys``, by key data: what the configuration's
    /// ``ENExportSelection`` selects by. A key missing here counts as a non-traveller's published for the output region.
    public var origins: [Data: ENKeyServerKeyOrigin]

    /// Creates a contents record.
    public init(
        keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey], latestArrival: Date?,
        lastKeyRow: Int64, origins: [Data: ENKeyServerKeyOrigin] = [:]
    ) {
        self.keys = keys
        self.revisedKeys = revisedKeys
        self.latestArrival = latestArrival
        self.lastKeyRow = lastKeyRow
        self.origins = origins
    }
}
