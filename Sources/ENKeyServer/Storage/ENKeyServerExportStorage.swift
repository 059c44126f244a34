public import ENCore
public import Foundation

/// The storage primitives of exports: claiming a due batch under a lease, reading its keys, recording its files,
/// releasing it, listing names for `index.txt`, and retention. Each is one transaction.
///
/// An exporter claims a batch, reads its keys, signs its files outside any transaction, then completes it; the
/// lease makes sure that two exporters on one database never export one batch twice, and that a batch whose
/// exporter died is redone from scratch once the lease expires.
public protocol ENKeyServerExportStorage: Sendable {
    /// Creates the batches due at `date` and claims the oldest unclaimed open batch for `owner`; `nil` when none.
    func claimExportBatch(
        _ configuration: ENKeyServerConfiguration, owner: String, at date: Date
    ) async throws(ENError) -> ENKeyServerExportLease?

    /// The keys of a claimed batch.
    func exportBatchContents(_ lease: ENKeyServerExportLease) async throws(ENError) -> ENKeyServerExportContents

    /// Records a claimed batch's files and padding keys and marks its keys exported; throws
    /// `ENError.Code.invalidated` when the lease was lost.
    func completeExportBatch(
        _ lease: ENKeyServerExportLease, files: [Data], paddingKeys: [ENTemporaryExposureKey],
        contents: ENKeyServerExportContents, at date: Date
    ) async throws(ENError) -> [ENKeyServerFile]

    /// Gives up a lease after a failed export.
    func releaseExportBatch(_ lease: ENKeyServerExportLease) async throws(ENError)

    /// The names of the files of batches that started after `cutoff`, sorted in byte order.
    func exportFileNames(startingAfter cutoff: Date) async throws(ENError) -> [String]

    /// The files from index `index` on, in index order.
    func exportFiles(startingAt index: Int) async throws(ENError) -> [ENKeyServerFile]

    /// The file named `name`, or `nil`.
    func exportFile(named name: String) async throws(ENError) -> ENKeyServerFile?

    /// The names of the files of batches that ended at or before `cutoff`.
    func exportFileNames(endingAtOrBefore cutoff: Date) async throws(ENError) -> [String]

    /// Deletes the keys that arrived before `cutoff` and the files of batches that ended at or before it; returns
    /// how many keys were deleted.
    func deleteExpired(before cutoff: Date) async throws(ENError) -> Int
}
