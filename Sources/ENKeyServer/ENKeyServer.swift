public import ENCore
internal import ENStore
public import Foundation

/// A key server, in-process: the server side of Apple's sample app done for real.
///
/// It stores the diagnosis keys apps post (validated, de-duplicated by key data and rolling start, in arrival
/// order, with revisions), publishes them in signed export files, keeps each file's bytes, and serves the files
/// by index or by name, Google's `index.txt` and the exposure-configuration JSON. Its state lives in an
/// ``ENKeyServerStore``; every operation is one transaction there.
///
/// ```swift
/// let server = ENKeyServer(
///     store: try ENKeyServerStore(path: "/var/lib/keyserver/keys.sqlite"),
///     configuration: ENKeyServerConfiguration(
///         region: "310", signers: [ENExportSigner(signingKey: key, keyID: "310", keyVersion: "v1")]))
/// try server.postDiagnosisKeys(keysFromAnApp)
/// let newFiles = try server.publish()                  // every few hours
/// let forTheApp = try server.files(startingAt: nextDiagnosisKeyFileIndex)
/// ```
///
/// Each operation has a synchronous form (it blocks the calling thread) and an `async` form (selected in
/// Swift concurrency) that runs on the database's queues and never blocks the cooperative thread pool.
/// The server's clock dates posts and batches and decides what has expired; inject one for simulations.
public final class ENKeyServer: Sendable {
    /// The server's storage.
    public let store: ENKeyServerStore
    /// What the server publishes and serves.
    public let configuration: ENKeyServerConfiguration
    /// The server's clock.
    public let clock: @Sendable () -> Date
    /// The name this server claims export batches under: unique to the instance.
    public let exporterID: String

    /// Creates a server on `store`.
    public init(
        store: ENKeyServerStore, configuration: ENKeyServerConfiguration,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.exporterID = UUID().uuidString
    }

    // MARK: Posting keys

    /// Stores posted keys (validated; one bad key refuses the whole post), de-duplicated by key data and rolling
    /// start, in arrival order; a stored key re-posted with another report type or days since onset is a
    /// revision (see `ENStoreUpdate.postDiagnosisKeys(_:at:)`).
    ///
    /// - Throws: `ENError.Code.badParameter` naming the first invalid key (`context.section` `"posted keys"`,
    ///   `context.index`, `context.field`); nothing is stored.
    @discardableResult
    public func postDiagnosisKeys(_ keys: [ENTemporaryExposureKey]) throws(ENError) -> ENKeyServerPostResult {
        try store.write(.postDiagnosisKeys(keys, at: clock()))
    }

    /// Stores posted keys; see the synchronous form. Does not block.
    @discardableResult
    public func postDiagnosisKeys(_ keys: [ENTemporaryExposureKey]) async throws(ENError) -> ENKeyServerPostResult {
        try await store.write(.postDiagnosisKeys(keys, at: clock()))
    }

    // MARK: Publishing

    /// Exports every due batch (see ``ENKeyServerConfiguration/exportPeriod``; without a period, one batch of
    /// everything waiting) into signed files as Google's server writes them, records them in the store, writes
    /// them and `index.txt` to the ``ENKeyServerConfiguration/exportDirectory`` if there is one, and returns the
    /// new files (`[]` when nothing is due). Several servers may export from one store at once: each batch is
    /// claimed under a lease and exported by one of them.
    ///
    /// - Throws: `ENError.Code.badParameter` for export settings or a configuration the writer refuses (no
    ///   signer, more than ten, a file limit below 1); signing, file and database errors. The batch being
    ///   exported is then released, unexported, and batches exported before it stay exported.
    public func publish() throws(ENError) -> [ENKeyServerFile] {
        try exportDueBatches()
    }

    /// Exports every due batch; see the synchronous form. Does not block.
    public func publish() async throws(ENError) -> [ENKeyServerFile] {
        try await exporter.publish()
    }

    // MARK: Serving files

    /// The published files from `index` on, in index order, without expired ones (what the sample app's
    /// `getDiagnosisKeyFileURLs(startingAt:)` lists).
    public func files(startingAt index: Int) throws(ENError) -> [ENKeyServerFile] {
        try store.read(.exportFiles(startingAt: index, endingAfter: retentionCutoff))
    }

    /// The published files from `index` on; see the synchronous form. Does not block.
    public func files(startingAt index: Int) async throws(ENError) -> [ENKeyServerFile] {
        try await store.read(.exportFiles(startingAt: index, endingAfter: retentionCutoff))
    }

    /// One published file by name (what the sample app's `downloadDiagnosisKeyFile(at:)` fetches); `nil` when
    /// unknown or expired.
    public func file(named name: String) throws(ENError) -> ENKeyServerFile? {
        try store.read(.exportFile(named: name, endingAfter: retentionCutoff))
    }

    /// One published file by name; see the synchronous form. Does not block.
    public func file(named name: String) async throws(ENError) -> ENKeyServerFile? {
        try await exporter.file(named: name)
    }

    /// Google's `index.txt`: the names of the files of batches that started in the retention period, with the
    /// ``ENKeyServerConfiguration/exportRoot`` prefix (`ROOT/NAME`), sorted, joined with `"\n"`, no trailing
    /// newline (empty when there is no file).
    public func indexText() throws(ENError) -> String {
        configuration.indexText(try store.read(.exportFileNames(startingAfter: retentionCutoff)))
    }

    /// Google's `index.txt`; see the synchronous form. Does not block.
    public func indexText() async throws(ENError) -> String {
        try await exporter.indexText()
    }

    /// The exposure configuration as the sample app's server JSON (`ENExposureConfiguration`'s `Codable` form,
    /// keys sorted).
    ///
    /// - Throws: `ENError.Code.internal` if the configuration cannot be encoded.
    public func exposureConfigurationJSON() throws(ENError) -> Data {
        try configuration.exposureConfigurationJSON()
    }

    /// The exposure configuration's JSON; see the synchronous form (it does not touch the store).
    public func exposureConfigurationJSON() async throws(ENError) -> Data {
        let json: () throws(ENError) -> Data = exposureConfigurationJSON
        return try json()
    }

    // MARK: Retention

    /// Drops the keys that arrived more than the retention period ago and the files of batches that ended
    /// before it, in the store and in the export directory (rewriting `index.txt` first); returns how many keys
    /// were dropped.
    @discardableResult
    public func deleteExpired() throws(ENError) -> Int {
        try deleteExpiredExports()
    }

    /// Drops expired keys and files; see the synchronous form. Does not block.
    @discardableResult
    public func deleteExpired() async throws(ENError) -> Int {
        try await exporter.deleteExpired()
    }

    /// The export side on the server's store, with the server's clock and exporter name: what the `async` forms
    /// of publishing, serving and retention run.
    public var exporter: ENKeyServerExporter {
        ENKeyServerExporter(storage: store, configuration: configuration, clock: clock, exporterID: exporterID)
    }

    /// The start of the retention period by the server's clock.
    var retentionCutoff: Date { clock().addingTimeInterval(-configuration.retention) }
}
