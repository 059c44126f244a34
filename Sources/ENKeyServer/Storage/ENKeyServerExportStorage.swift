public import ENCore
public import Foundation

/// The storage primitives of exports: claiming a due batch under a lease, reading its keys, recording its files,
/// releasing it, listing names for `index.txt`, and retention. Each is one transaction.
///
/// An exporter claims a batch, reads its keys, signs its files outside any transaction, then completes it; the
/// lease makes sure that two exporters on one database never export one batch twice, and that a batch whose
/// exporter died is redone from scratch once the lease expires.
///
/// One storage holds the batches and files of any number of export configurations, told apart by
/// ``ENKeyServerConfiguration/exportName`` (the default configuration's is empty). Each configuration marks the keys
/// it exported on its own (a key and its revision each go once into each configuration's files), and numbers its
/// files on its own.
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

    /// The names of the files of the export configuration `exportName` (``ENKeyServerConfiguration/exportName``)
    /// whose batches started after `cutoff`, sorted in byte order.
    func exportFileNames(of exportName: String, startingAfter cutoff: Date) async throws(ENError) -> [String]

    /// The files of the export configuration `exportName` from index `index` on, in index order.
    func exportFiles(of exportName: String, startingAt index: Int) async throws(ENError) -> [ENKeyServerFile]

    /// The file of the export configuration `exportName` named `name`, or `nil`.
    func exportFile(of exportName: String, named name: String) async throws(ENError) -> ENKeyServerFile?

    /// The names of the files of the export configuration `exportName` whose batches ended at or before `cutoff`.
    func exportFileNames(of exportName: String, endingAtOrBefore cutoff: Date) async throws(ENError) -> [String]

    /// Deletes the keys that arrived before `cutoff` (with their export marks) and the files of batches that ended at
    /// or before it, of every export configuration; returns how many keys were deleted.
    func deleteExpired(before cutoff: Date) async throws(ENError) -> Int
}

extension ENKeyServerExportStorage {
    /// The names of the default export configuration's files whose batches started after `cutoff`.
    public func exportFileNames(startingAfter cutoff: Date) async throws(ENError) -> [String] {
        try await exportFileNames(of: "", startingAfter: cutoff)
    }

    /// The default export configuration's files from index `index` on.
    public func exportFiles(startingAt index: Int) async throws(ENError) -> [ENKeyServerFile] {
        try await exportFiles(of: "", startingAt: index)
    }

    /// The default export configuration's file named `name`, or `nil`.
    public func exportFile(named name: String) async throws(ENError) -> ENKeyServerFile? {
        try await exportFile(of: "", named: name)
    }

    /// The names of the default export configuration's files whose batches ended at or before `cutoff`.
    public func exportFileNames(endingAtOrBefore cutoff: Date) async throws(ENError) -> [String] {
        try await exportFileNames(of: "", endingAtOrBefore: cutoff)
    }
}
