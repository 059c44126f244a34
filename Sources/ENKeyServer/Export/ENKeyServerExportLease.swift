public import Foundation

/// An export batch claimed by one exporter until ``expiresAt``: the batch's window and which keys it takes.
///
/// Claimed with `ENKeyServerStorage.claimExportBatch(_:owner:at:)`; only its owner can complete it while the
/// lease runs. When the lease expires first (the exporter crashed or is too slow), another exporter claims the
/// batch and redoes it from scratch.
public struct ENKeyServerExportLease: Hashable, Sendable {
    /// The batch's index, from 0, in claiming order.
    public var batchIndex: Int
    /// The start of the batch's window, in UTC seconds (the `START` of its file names).
    public var startTimestamp: UInt64
    /// The end of the batch's window, in UTC seconds (the `END` of its file names).
    public var endTimestamp: UInt64
    /// The keys the batch takes: those not yet exported that arrived (new keys) or were revised (revisions) at
    /// or after this date; `nil` for no lower bound (an export without a period takes everything waiting).
    public var keysFrom: Date?
    /// The keys the batch takes arrived or were revised before this date.
    public var keysUntil: Date
    /// Who holds the lease.
    public var owner: String
    /// When the lease ends.
    public var expiresAt: Date
    /// The export configuration the batch belongs to (``ENKeyServerConfiguration/exportName``; empty for the
    /// default one).
    public var exportName: String

    /// Creates a lease record.
    public init(
        batchIndex: Int, startTimestamp: UInt64, endTimestamp: UInt64, keysFrom: Date?, keysUntil: Date,
        owner: String, expiresAt: Date, exportName: String = ""
    ) {
        self.exportName = exportName
        self.batchIndex = batchIndex
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.keysFrom = keysFrom
        self.keysUntil = keysUntil
        self.owner = owner
        self.expiresAt = expiresAt
    }
}
