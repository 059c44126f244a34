public import ENCore
public import Foundation

/// A key server in process: the server side of Apple's sample app done for real, on any
/// ``ENKeyServerStorage``.
///
/// It publishes the diagnosis keys a trusted caller posts through the rules of Google's publish API (the
/// ``ENPublishHandler`` of `POST /v1/publish` applies the same ones: validation, the embargo of still-valid keys,
/// key identity by key data, report-type transitions), exports them in signed files with an
/// ``ENKeyServerExporter``, keeps each file's bytes, and serves the files by index or by name, Google's
/// `index.txt` and the exposure-configuration JSON.
///
/// ```swift
/// let server = ENDiagnosisKeyServer(
///     storage: try ENKeyServerSQLiteStore(path: "/var/lib/keyserver/keys.sqlite"),
///     configuration: ENKeyServerConfiguration(
///         region: "310", signers: [ENExportSigner(signingKey: key, keyID: "310", keyVersion: "v1")]))
/// try await server.postDiagnosisKeys(keysFromAnApp)
/// let newFiles = try await server.publish()                  // every few hours
/// let forTheApp = try await server.files(startingAt: nextDiagnosisKeyFileIndex)
/// ```
///
/// It exports and serves one export configuration, its ``configuration`` (the store's default one unless its
/// ``ENKeyServerConfiguration/exportName`` says otherwise): its file indexes and names are that configuration's.
/// Several configurations on one storage run as an ``ENKeyServerExportGroup`` beside it.
///
/// The caller is trusted: it skips the certificate that an HTTP client must present, and its keys' report types
/// (and days since onset, when known) stand for what a certificate would claim. It never skips the rules.
/// The server's clock dates posts and batches and decides what has expired; inject one for simulations.
public struct ENDiagnosisKeyServer: Sendable {
    /// The server's storage.
    public let storage: any ENKeyServerStorage
    /// What the server publishes and serves.
    public let configuration: ENKeyServerConfiguration
    /// The publish rules and limits (Google's defaults unless given). The apps and revision-token keys are not
    /// used: a trusted caller presents neither certificate nor token.
    public let rules: ENPublishConfiguration
    /// The server's clock.
    public let clock: @Sendable () -> Date
    /// The name this server claims export batches under: unique to the instance.
    public let exporterID: String

    /// Creates a server on `storage`.
    ///
    /// - Parameters:
    ///   - storage: where keys, batches and files are kept.
    ///   - configuration: signing keys, region, export period, directory and root, retention.
    ///   - rules: the publish rules; Google's defaults by default.
    ///   - clock: the current date; the system clock by default.
    public init(
        storage: any ENKeyServerStorage, configuration: ENKeyServerConfiguration,
        rules: ENPublishConfiguration = ENPublishConfiguration(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        self.configuration = configuration
        self.rules = rules
        self.clock = clock
        self.exporterID = UUID().uuidString
    }

    // MARK: Posting keys

    /// Publishes the keys one app shares, through Google's publish rules (see ``ENDiagnosisKeyServer``).
    ///
    /// A key is identified by its key data. A key not stored before is stored (a `revoked` key never stored is
    /// not: it says nothing). A key stored with the same report type is a duplicate. A key stored with another
    /// report type is a revision when Google allows the transition (likely to confirmed or negative,
    /// user-report to confirmed, likely or negative): it is exported as a revised key, with the original
    /// transmission risk level. Keys that break a per-key rule are left out and counted in
    /// ``ENKeyServerPostResult/rejected``, as Google's `partial_failure` leaves them out.
    ///
    /// - Parameters:
    ///   - keys: the keys, with their report type and (when known) days since onset.
    ///   - symptomOnsetInterval: the interval of symptom onset (0 for none), from which the days since onset of
    ///     keys without them are computed, as Google computes them.
    ///   - regions: the regions the keys are stored with; empty (the default) for the rules'
    ///     ``ENPublishConfiguration/defaultRegion``, else the configuration's ``ENKeyServerConfiguration/region``.
    ///   - traveler: whether the user travelled (the publish API's `traveler`).
    /// - Throws: `ENError.Code.badParameter` when the rules refuse the whole post (no valid key, too many keys,
    ///   overlapping keys, too many keys with one start), or a revision breaks a rule (a key revised twice, a
    ///   transition Google refuses); nothing is stored then. Database errors.
    @discardableResult
    public func postDiagnosisKeys(
        _ keys: [ENTemporaryExposureKey], symptomOnsetInterval: UInt32 = 0, regions: [String] = [],
        traveler: Bool = false
    ) async throws(ENError) -> ENKeyServerPostResult {
        let request = ENPublishRequest(
            temporaryExposureKeys: keys.map {
                ENPublishExposureKey(
                    key: $0.keyData.base64EncodedString(), rollingStartNumber: Int32(clamping: $0.rollingStartNumber),
                    rollingPeriod: Int32(clamping: $0.rollingPeriod), transmissionRisk: Int($0.transmissionRiskLevel))
            },
            symptomOnsetInterval: Int32(clamping: symptomOnsetInterval), traveler: traveler)
        let origin = ENKeyServerKeyOrigin(
            regions: regions.isEmpty ? [rules.defaultRegion ?? configuration.region] : regions, traveler: traveler)
        let transform = PublishTransform(
            request, claims: nil, trustedKeys: keys, origin: origin, at: clock(), configuration: rules)
        if let error = transform.error, transform.exposures.isEmpty {
            throw .badParameter("the publish rules refuse the keys: \(error)", context: .init(section: "posted keys"))
        }
        let outcome: PublishRevision.Outcome
        do {
            outcome = try await PublishRevision.apply(
                transform.exposures, token: nil, requiresToken: false,
                allowsPartialRevisions: rules.allowsPartialRevisions, storage: storage)
        } catch {
            throw error.asENError
        }
        return ENKeyServerPostResult(
            accepted: outcome.inserted, duplicates: transform.exposures.count - outcome.inserted - outcome.revised,
            revised: outcome.revised, rejected: keys.count - transform.exposures.count,
            reason: transform.error ?? (transform.warnings.isEmpty ? nil : transform.warnings.joined(separator: "; ")))
    }

    // MARK: Publishing and serving

    /// Exports every due batch; see ``ENKeyServerExporter/publish()``.
    public func publish() async throws(ENError) -> [ENKeyServerFile] {
        try await exporter.publish()
    }

    /// The published files from `index` on, in index order, without expired ones (what the sample app's
    /// `getDiagnosisKeyFileURLs(startingAt:)` lists).
    public func files(startingAt index: Int) async throws(ENError) -> [ENKeyServerFile] {
        try await exporter.files(startingAt: index)
    }

    /// One published file by name (what the sample app's `downloadDiagnosisKeyFile(at:)` fetches); `nil` when
    /// unknown or expired.
    public func file(named name: String) async throws(ENError) -> ENKeyServerFile? {
        try await exporter.file(named: name)
    }

    /// Google's `index.txt`; see ``ENKeyServerExporter/indexText()``.
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

    /// Drops expired keys and files; see ``ENKeyServerExporter/deleteExpired()``.
    @discardableResult
    public func deleteExpired() async throws(ENError) -> Int {
        try await exporter.deleteExpired()
    }

    /// The export side on the server's storage, with the server's clock and exporter name.
    public var exporter: ENKeyServerExporter {
        ENKeyServerExporter(storage: storage, configuration: configuration, clock: clock, exporterID: exporterID)
    }
}

extension PublishRevision.Failure {
    /// The failure as an in-process caller gets it.
    var asENError: ENError {
        switch self {
        case .storage(let error): error
        case .keyAlreadyRevised:
            .badParameter("a key was already revised", context: .init(section: "posted keys"))
        case .invalidTransition(let from, let to):
            .badParameter(
                "invalid report type transition, cannot transition from '\(from)' to '\(to)'",
                context: .init(section: "posted keys"))
        case .noRevisionToken, .existingKeyNotInToken, .tokenMetadataMismatch, .incomingMetadataMismatch:
            .badParameter("the revision token does not allow the revision", context: .init(section: "posted keys"))
        }
    }
}
