public import ENCore
internal import ENExportFormat
public import Foundation

/// A key server's export side on any ``ENKeyServerExportStorage``: cutting due batches into signed files,
/// serving them by name and in Google's `index.txt`, the export directory, and retention.
///
/// ``ENDiagnosisKeyServer`` runs one on its storage, as `enserver` does on SQLite or PostgreSQL. Several exporters, in one process or many, may work on one storage at once: each
/// batch is claimed under a lease (``ENKeyServerExportLease``) and exported by one of them.
///
/// ```swift
/// let exporter = ENKeyServerExporter(storage: storage, configuration: configuration)
/// let newFiles = try await exporter.publish()     // every few minutes: cuts what is due
/// let index = try await exporter.indexText()      // what GET /ROOT/index.txt answers
/// ```
public struct ENKeyServerExporter: Sendable {
    /// Where batches, keys and files are stored.
    public let storage: any ENKeyServerExportStorage
    /// What the exporter publishes and serves.
    public let configuration: ENKeyServerConfiguration
    /// The exporter's clock: it decides which batches are due and what has expired.
    public let clock: @Sendable () -> Date
    /// The name this exporter claims batches under; unique to the instance.
    public let exporterID: String

    /// Creates an exporter on `storage`.
    ///
    /// - Parameters:
    ///   - storage: the key server's storage.
    ///   - configuration: signing keys, region, export period, directory and root, retention.
    ///   - clock: the current date; the system clock by default.
    ///   - exporterID: the lease owner's name; a new UUID by default.
    public init(
        storage: any ENKeyServerExportStorage, configuration: ENKeyServerConfiguration,
        clock: @escaping @Sendable () -> Date = { Date() }, exporterID: String = UUID().uuidString
    ) {
        self.storage = storage
        self.configuration = configuration
        self.clock = clock
        self.exporterID = exporterID
    }

    /// Exports every due batch (see ``ENKeyServerConfiguration/exportPeriod``; without a period, one batch of
    /// everything waiting) into signed files as Google's server writes them, records them in the storage, writes
    /// them and `index.txt` to the ``ENKeyServerConfiguration/exportDirectory`` if there is one, and returns the
    /// new files (`[]` when nothing is due).
    ///
    /// - Throws: `ENError.Code.badParameter` for export settings or a configuration the writer refuses; signing,
    ///   file and database errors. The batch being exported is then released, unexported, and batches exported
    ///   before it stay exported.
    public func publish() async throws(ENError) -> [ENKeyServerFile] {
        try configuration.validateExportSettings()
        var published: [ENKeyServerFile] = []
        while let lease = try await storage.claimExportBatch(configuration, owner: exporterID, at: clock()) {
            do throws(ENError) {
                let contents = try await storage.exportBatchContents(lease)
                let selected = configuration.selection.filter(contents, outputRegion: configuration.region)
                let output = try configuration.signedFiles(lease, selected, at: clock())
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

    /// One published file by name; `nil` when unknown or when its batch ended before the retention period.
    public func file(named name: String) async throws(ENError) -> ENKeyServerFile? {
        guard let file = try await storage.exportFile(of: configuration.exportName, named: name) else { return nil }
        return file.endTimestamp > ExportBatchWindow.unixSeconds(retentionCutoff) ? file : nil
    }

    /// The published files from index `index` on, in index order, without those whose batch ended before the
    /// retention period.
    public func files(startingAt index: Int) async throws(ENError) -> [ENKeyServerFile] {
        let cutoff = ExportBatchWindow.unixSeconds(retentionCutoff)
        return try await storage.exportFiles(of: configuration.exportName, startingAt: index).filter {
            $0.endTimestamp > cutoff
        }
    }

    /// Google's `index.txt`: the names of the files of batches that started in the retention period, with the
    /// ``ENKeyServerConfiguration/exportRoot`` prefix (`ROOT/NAME`), sorted, joined with `"\n"`, no trailing
    /// newline (empty when there is no file).
    public func indexText() async throws(ENError) -> String {
        configuration.indexText(
            try await storage.exportFileNames(of: configuration.exportName, startingAfter: retentionCutoff))
    }

    /// The exposure configuration as the sample app's server JSON (`ENExposureConfiguration`'s `Codable` form,
    /// keys sorted).
    ///
    /// - Throws: `ENError.Code.internal` if the configuration cannot be encoded.
    public func exposureConfigurationJSON() throws(ENError) -> Data {
        try configuration.exposureConfigurationJSON()
    }

    /// Drops the keys that arrived more than the retention period ago and the files of batches that ended
    /// before it, in the storage and in the export directory (rewriting `index.txt` first); returns how many keys
    /// were dropped.
    @discardableResult
    public func deleteExpired() async throws(ENError) -> Int {
        let cutoff = retentionCutoff
        let expired = try await expiredFileNames(before: cutoff)
        let deleted = try await storage.deleteExpired(before: cutoff)
        try await removeExpiredFiles(expired)
        return deleted
    }

    /// The names of this configuration's files that retention drops at `cutoff`.
    func expiredFileNames(before cutoff: Date) async throws(ENError) -> [String] {
        try await storage.exportFileNames(of: configuration.exportName, endingAtOrBefore: cutoff)
    }

    /// After the storage dropped `expired`: rewrites `index.txt` in the export directory, then removes them there.
    func removeExpiredFiles(_ expired: [String]) async throws(ENError) {
        try await updateExportDirectory()
        if let directory = ExportDirectory(configuration) {
            for name in expired { try directory.remove(name) }
        }
    }

    /// Writes to the export directory the listed files it lacks (from the storage's bytes), then `index.txt`: a
    /// file is listed only once it is recorded in the storage and whole on disk. Temporary files abandoned by a
    /// crashed exporter (older than a lease) are removed.
    func updateExportDirectory() async throws(ENError) {
        guard let directory = ExportDirectory(configuration) else { return }
        directory.removeAbandonedTemporaryFiles(olderThan: configuration.exportLeaseDuration)
        let names = try await storage.exportFileNames(of: configuration.exportName, startingAfter: retentionCutoff)
        for name in names where !directory.contains(name) {
            guard let file = try await storage.exportFile(of: configuration.exportName, named: name) else { continue }
            try directory.save(file.data, as: name)
        }
        try directory.writeIndex(names)
    }

    /// The start of the retention period by the exporter's clock.
    var retentionCutoff: Date { clock().addingTimeInterval(-configuration.retention) }
}

extension ENKeyServerConfiguration {
    /// The signed zips of a claimed batch, as Google's server writes them (`ENExportLayout.googleServer`, the
    /// configuration's padding), signed by the signers active at `date`, and the padding keys; nothing for an
    /// empty batch.
    func signedFiles(
        _ lease: ENKeyServerExportLease, _ contents: ENKeyServerExportContents, at date: Date
    ) throws(ENError) -> (files: [Data], paddingKeys: [ENTemporaryExposureKey]) {
        guard !contents.keys.isEmpty || !contents.revisedKeys.isEmpty else { return ([], []) }
        var writer = ENExportWriter(
            region: region, startTimestamp: lease.startTimestamp, endTimestamp: lease.endTimestamp,
            signers: try activeSigners(at: date))
        writer.maximumKeysPerFile = maximumKeysPerFile
        writer.layout = .googleServer
        writer.padding = padding
        let output = try writer.write(keys: contents.keys, revisedKeys: contents.revisedKeys)
        var files: [Data] = []
        files.reserveCapacity(output.archives.count)
        for archive in output.archives { files.append(try archive.zipData()) }
        return (files, output.paddingKeys)
    }

    /// `index.txt` of `names`: with the root prefix, joined with `"\n"`.
    func indexText(_ names: [String]) -> String {
        names.map { exportRoot.isEmpty ? $0 : "\(exportRoot)/\($0)" }.joined(separator: "\n")
    }

    /// The exposure configuration's JSON, keys sorted.
    func exposureConfigurationJSON() throws(ENError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(exposureConfiguration)
        } catch {
            throw ENError(.internal, "the exposure configuration does not encode: \(error)")
        }
    }
}
