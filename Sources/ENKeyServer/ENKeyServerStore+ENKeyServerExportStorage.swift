public import ENCore
internal import ENStore
public import Foundation

/// The export primitives on SQLite: each runs one of the store's request values.
extension ENKeyServerStore: ENKeyServerExportStorage {
    /// Runs `ENStoreUpdate.claimExportBatch(_:owner:at:)`.
    public func claimExportBatch(
        _ configuration: ENKeyServerConfiguration, owner: String, at date: Date
    ) async throws(ENError) -> ENKeyServerExportLease? {
        try await write(.claimExportBatch(configuration, owner: owner, at: date))
    }

    /// Runs `ENStoreQuery.exportBatchContents(_:)`.
    public func exportBatchContents(_ lease: ENKeyServerExportLease) async throws(ENError) -> ENKeyServerExportContents
    {
        try await read(.exportBatchContents(lease))
    }

    /// Runs `ENStoreUpdate.completeExportBatch(_:files:paddingKeys:contents:at:)`.
    public func completeExportBatch(
        _ lease: ENKeyServerExportLease, files: [Data], paddingKeys: [ENTemporaryExposureKey],
        contents: ENKeyServerExportContents, at date: Date
    ) async throws(ENError) -> [ENKeyServerFile] {
        try await write(
            .completeExportBatch(lease, files: files, paddingKeys: paddingKeys, contents: contents, at: date))
    }

    /// Runs `ENStoreUpdate.releaseExportBatch(_:)`.
    public func releaseExportBatch(_ lease: ENKeyServerExportLease) async throws(ENError) {
        try await write(.releaseExportBatch(lease))
    }

    /// Runs `ENStoreQuery.exportFileNames(startingAfter:)`.
    public func exportFileNames(startingAfter cutoff: Date) async throws(ENError) -> [String] {
        try await read(.exportFileNames(startingAfter: cutoff))
    }

    /// Runs `ENStoreQuery.exportFile(named:endingAfter:)`.
    public func exportFile(named name: String) async throws(ENError) -> ENKeyServerFile? {
        try await read(.exportFile(named: name))
    }

    /// Runs `ENStoreQuery.exportFileNames(endingAtOrBefore:)`.
    public func exportFileNames(endingAtOrBefore cutoff: Date) async throws(ENError) -> [String] {
        try await read(.exportFileNames(endingAtOrBefore: cutoff))
    }

    /// Runs `ENStoreUpdate.deleteExpired(before:)`.
    public func deleteExpired(before cutoff: Date) async throws(ENError) -> Int {
        try await write(.deleteExpired(before: cutoff))
    }
}
