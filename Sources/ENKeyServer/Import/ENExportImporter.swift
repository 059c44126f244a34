internal import ENBoundedFetch
public import ENCore
internal import ENExportFormat
public import Foundation

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// Imports another key server's export files into this one, as Google's `export-importer` does
/// (`internal/exportimport`): it reads the other server's `index.txt`, records the files it has not seen, downloads
/// each open file, verifies it against that server's public keys, and stores its keys with the import's region and
/// traveller flag, so that this server's export configurations export them.
///
/// ```swift
/// let importer = ENExportImporter(storage: store, configuration: ENExportImportConfiguration(
///     name: "region-a", indexURL: URL(string: "https://a.example/exposureKeyExport-A/index.txt")!,
///     exportRoot: URL(string: "https://a.example")!, region: "A", trustedKeys: [aKey]))
/// let result = try await importer.run()     // every few minutes
/// ```
///
/// - A file is imported whole or not at all: its keys and revisions are one ``ENKeyServerStorage`` write. A file
///   that fails (download, size, signature, format) stores nothing, stays open, and is tried again after
///   ``ENExportImportConfiguration/retryInterval`` times its failed tries; Google's importer means to do this
///   (`ImportFile.ShouldTry`) but marks a failed file complete (`handle_import.go`, `runImport`), so there it is
///   never retried.
/// - Running again after a crash at any moment imports no key twice and loses none: inserting a stored key does
///   nothing, revising a key to the type it has does nothing, and a file is marked imported only after its keys
///   are stored.
/// - A key already stored (published here or imported by another import) is left as it is; a revised key revises
///   only a key this import brought (Google's `SkipRevisions`, `OnlyRevisions` and `RequireExportImportID`).
public struct ENExportImporter: Sendable {
    /// Fetches a URL (GET, 200 required) reading at most so many bytes.
    public typealias Fetch = @Sendable (_ url: URL, _ maximumBytes: Int) async throws(ENError) -> Data

    /// Where keys and the record of imported files are stored.
    public let storage: any ENKeyServerStorage
    /// What is imported, and how.
    public let configuration: ENExportImportConfiguration
    /// The importer's clock: when files are found and tried, and the time imported keys are stored with.
    public let clock: @Sendable () -> Date
    /// How `index.txt` and the files are downloaded.
    public let fetch: Fetch

    /// Creates an importer.
    ///
    /// - Parameters:
    ///   - storage: this key server's storage.
    ///   - configuration: the other server's index, root and keys, and the region and traveller flag of its keys.
    ///   - clock: the current date; the system clock by default.
    ///   - fetch: the download; by default an HTTP(S) GET through URLSession, the body read up to the limit and the
    ///     transfer stopped beyond it.
    public init(
        storage: any ENKeyServerStorage, configuration: ENExportImportConfiguration,
        clock: @escaping @Sendable () -> Date = { Date() }, fetch: Fetch? = nil
    ) {
        self.storage = storage
        self.configuration = configuration
        self.clock = clock
        if let fetch {
            self.fetch = fetch
        } else {
            self.fetch = Self.boundedFetch
        }
    }

    /// The default download: a GET through URLSession (2 minutes without data fails it, Google's
    /// `EXPORT_FILE_DOWNLOAD_TIMEOUT`), 200 required, the body read up to the limit.
    @Sendable static func boundedFetch(_ url: URL, _ maximumBytes: Int) async throws(ENError) -> Data {
        let session = URLSessionConfiguration.ephemeral
        session.timeoutIntervalForRequest = 120
        return try await BoundedFetch.fetch(url, maximumBytes: maximumBytes, configuration: session)
    }

    /// Reads the other server's `index.txt`, records its new files, and imports every file due.
    ///
    /// - Returns: what was found, imported and refused.
    /// - Throws: `ENError.Code.badParameter` for a configuration ``ENExportImportConfiguration/validate()`` refuses;
    ///   the download's error when `index.txt` cannot be read, `badFormat` when it is not UTF-8 text of relative
    ///   names; storage errors. A file that fails does not throw: it is in the result's
    ///   ``ENExportImportResult/failedFiles``.
    public func run() async throws(ENError) -> ENExportImportResult {
        try configuration.validate()
        let urls = try configuration.fileURLs(
            index: try await fetch(configuration.indexURL, configuration.maximumIndexBytes))
        var result = ENExportImportResult()
        (result.newFiles, result.closedFiles) = try await storage.scheduleImportFiles(
            configuration.name, files: urls, at: clock())
        let due = try await storage.importFilesDue(
            configuration.name, retryInterval: configuration.retryInterval, at: clock())
        for file in due {
            do throws(ENError) {
                let imported = try await importFile(file.url)
                try await storage.finishImportFile(configuration.name, file: file.url, imported: true, at: clock())
                result.importedFiles.append(file.url)
                result.insertedKeys += imported.inserted
                result.revisedKeys += imported.revised
                result.droppedKeys += imported.dropped
            } catch {
                try await storage.finishImportFile(configuration.name, file: file.url, imported: false, at: clock())
                result.failedFiles.append((file.url, error))
            }
        }
        return result
    }

    /// Downloads, verifies and stores one file.
    func importFile(_ url: String) async throws(ENError) -> (inserted: Int, revised: Int, dropped: Int) {
        guard let location = URL(string: url) else { throw ENError(.badParameter, "\(url) is not a URL") }
        let data = try await fetch(location, configuration.maximumFileBytes)
        let export: ENKeyExport
        do throws(ENError) {
            let archive = try ENExportArchive(data: data)
            let verifier = ENExportVerifier(
                trustedKeys: try configuration.verificationKeys(at: clock()), rule: .anyTrustedSignature)
            let verification = try verifier.verify(archive)
            guard verification.isVerified else {
                throw ENError(.badFormat, "no signature verifies with the import's public keys: \(verification)")
            }
            export = try archive.keyExport()
        } catch {
            throw ENError(error.code, "\(url): \(error.reason)", context: error.context)
        }
        let keyData = (export.keys + export.revisedKeys).map(\.keyData)
        let stored = Dictionary(
            try await storage.storedKeys(withKeyData: keyData).map { ($0.key.keyData, $0) },
            uniquingKeysWith: { first, _ in first })
        let keys = ImportedKeys(
            keys: export.keys, revisedKeys: export.revisedKeys, stored: stored, configuration: configuration,
            at: clock())
        guard !keys.insertions.isEmpty || !keys.revisions.isEmpty else { return (0, 0, keys.dropped) }
        let inserted = try await storage.insertAndRevise(inserting: keys.insertions, revising: keys.revisions)
        return (inserted.count, keys.revisions.count, keys.dropped)
    }
}
