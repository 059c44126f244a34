internal import ENCore
internal import ENExportFormat
internal import ENStore
import Foundation

/// The exporter: claim a due batch, read its keys, sign its files, record them, then update the export
/// directory; repeated while batches are due. These are the synchronous forms, on the store's request values;
/// the `async` forms are ``ENKeyServerExporter``'s, on any storage.
extension ENKeyServer {
    /// Exports every due batch (``publish()``).
    func exportDueBatches() throws(ENError) -> [ENKeyServerFile] {
        try configuration.validateExportSettings()
        var published: [ENKeyServerFile] = []
        while let lease = try store.write(.claimExportBatch(configuration, owner: exporterID, at: clock())) {
            do throws(ENError) {
                let contents = try store.read(.exportBatchContents(lease))
                let output = try configuration.signedFiles(lease, contents)
                published += try store.write(
                    .completeExportBatch(
                        lease, files: output.files, paddingKeys: output.paddingKeys, contents: contents, at: clock()))
            } catch {
                try? store.write(.releaseExportBatch(lease))
                throw error
            }
        }
        try updateExportDirectory()
        return published
    }

    /// Writes to the export directory the listed files it lacks (from the store's bytes), then `index.txt`: a
    /// file is listed only once it is recorded in the store and whole on disk. Temporary files abandoned by a
    /// crashed exporter (older than a lease) are removed.
    func updateExportDirectory() throws(ENError) {
        guard let directory = ExportDirectory(configuration) else { return }
        directory.removeAbandonedTemporaryFiles(olderThan: configuration.exportLeaseDuration)
        let names = try store.read(.exportFileNames(startingAfter: retentionCutoff))
        for name in names where !directory.contains(name) {
            guard let file = try store.read(.exportFile(named: name)) else { continue }
            try directory.save(file.data, as: name)
        }
        try directory.writeIndex(names)
    }

    /// Deletes expired keys and files (``deleteExpired()``): in the store, then `index.txt`, then the files.
    func deleteExpiredExports() throws(ENError) -> Int {
        let cutoff = retentionCutoff
        let expired = try store.read(.exportFileNames(endingAtOrBefore: cutoff))
        let deleted = try store.write(.deleteExpired(before: cutoff))
        try updateExportDirectory()
        if let directory = ExportDirectory(configuration) {
            for name in expired { try directory.remove(name) }
        }
        return deleted
    }
}
