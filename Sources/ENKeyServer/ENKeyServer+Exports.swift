internal import ENCore
internal import ENExportFormat
internal import ENStore
import Foundation

/// The exporter: claim a due batch, read its keys, sign its files, record them, then update the export
/// directory; repeated while batches are due. The synchronous form runs the store's request values, the `async`
/// form the same steps through `ENKeyServerStorage`; both share everything but the calls.
extension ENKeyServer {
    /// Exports every due batch (``publish()``).
    func exportDueBatches() throws(ENError) -> [ENKeyServerFile] {
        try configuration.validateExportSettings()
        var published: [ENKeyServerFile] = []
        while let lease = try store.write(.claimExportBatch(configuration, owner: exporterID, at: clock())) {
            do throws(ENError) {
                let contents = try store.read(.exportBatchContents(lease))
                let output = try signedFiles(lease, contents)
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

    /// Exports every due batch (``publish()``); see the synchronous form.
    func exportDueBatches() async throws(ENError) -> [ENKeyServerFile] {
        try configuration.validateExportSettings()
        let storage: some ENKeyServerStorage = store
        var published: [ENKeyServerFile] = []
        while let lease = try await storage.claimExportBatch(configuration, owner: exporterID, at: clock()) {
            do throws(ENError) {
                let contents = try await storage.exportBatchContents(lease)
                let output = try signedFiles(lease, contents)
                published += try await storage.completeExportBatch(
                    lease, files: output.files, paddingKeys: output.paddingKeys, contents: contents, at: clock())
            } catch {
                try? await storage.releaseExportBatch(lease)
                throw error
            }
        }
        try await updateExportDirectory()
        return published
    }

    /// The signed zips of a claimed batch, as Google's server writes them (`ENExportLayout.googleServer`, the
    /// configuration's padding), and the padding keys; nothing for an empty batch.
    func signedFiles(
        _ lease: ENKeyServerExportLease, _ contents: ENKeyServerExportContents
    ) throws(ENError) -> (files: [Data], paddingKeys: [ENTemporaryExposureKey]) {
        guard !contents.keys.isEmpty || !contents.revisedKeys.isEmpty else { return ([], []) }
        var writer = ENExportWriter(
            region: configuration.region, startTimestamp: lease.startTimestamp, endTimestamp: lease.endTimestamp,
            signers: configuration.signers)
        writer.maximumKeysPerFile = configuration.maximumKeysPerFile
        writer.layout = .googleServer
        writer.padding = configuration.padding
        let output = try writer.write(keys: contents.keys, revisedKeys: contents.revisedKeys)
        var files: [Data] = []
        files.reserveCapacity(output.archives.count)
        for archive in output.archives { files.append(try archive.zipData()) }
        return (files, output.paddingKeys)
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

    /// Updates the export directory; see the synchronous form.
    func updateExportDirectory() async throws(ENError) {
        guard let directory = ExportDirectory(configuration) else { return }
        directory.removeAbandonedTemporaryFiles(olderThan: configuration.exportLeaseDuration)
        let storage: some ENKeyServerStorage = store
        let names = try await storage.exportFileNames(startingAfter: retentionCutoff)
        for name in names where !directory.contains(name) {
            guard let file = try await storage.exportFile(named: name) else { continue }
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

    /// Deletes expired keys and files; see the synchronous form.
    func deleteExpiredExports() async throws(ENError) -> Int {
        let cutoff = retentionCutoff
        let storage: some ENKeyServerStorage = store
        let expired = try await storage.exportFileNames(endingAtOrBefore: cutoff)
        let deleted = try await storage.deleteExpired(before: cutoff)
        try await updateExportDirectory()
        if let directory = ExportDirectory(configuration) {
            for name in expired { try directory.remove(name) }
        }
        return deleted
    }

    /// `index.txt` of `names`: with the root prefix, joined with `"\n"`.
    func indexText(_ names: [String]) -> String {
        let root = configuration.exportRoot
        return names.map { root.isEmpty ? $0 : "\(root)/\($0)" }.joined(separator: "\n")
    }
}
