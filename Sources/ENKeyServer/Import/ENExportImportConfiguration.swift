public import ENCore
internal import ENExportFormat
public import Foundation

/// What an ``ENExportImporter`` imports: another key server's `index.txt`, the keys that sign its files, and the
/// region and traveller flag its keys are stored with here (Google's `ExportImport`, with its public keys
/// `ImportFilePublicKey` and the export-importer's settings, `internal/exportimport/config.go`).
public struct ENExportImportConfiguration: Sendable {
    /// The import's name, unique on this server: it records which files were imported, and marks the keys it brought
    /// (only the same import may revise them). Google's `ExportImport.ID`.
    public var name: String
    /// The other server's `index.txt` (Google's `IndexFile`).
    public var indexURL: URL
    /// The URL the names in `index.txt` are relative to (Google's `ExportRoot`): a name `ROOT/NAME.zip` is fetched
    /// from `exportRoot/ROOT/NAME.zip`.
    public var exportRoot: URL
    /// The region the imported keys are stored with (Google's `Region`).
    public var region: String
    /// Whether the imported keys count as travellers' (Google's `Traveler`).
    public var traveler: Bool
    /// The keys that sign the other server's files; a file is imported when one of its signatures verifies with one
    /// of those trusted at the moment of the import (Google's `ImportFilePublicKey`s and `AllowedKeys`), and refused
    /// whole otherwise.
    public var trustedKeys: [ENExportImportPublicKey]
    /// How long after each failed try a file is tried again, counted from its discovery (Google's
    /// `IMPORT_RETRY_RATE`, 6 h).
    public var retryInterval: TimeInterval
    /// The report type of imported keys without one (Google's `BACKFILL_REPORT_TYPE`, `confirmed`).
    public var backfillReportType: ENDiagnosisReportType
    /// The days since onset of imported keys without them (Google's `BACKFILL_DAYS_SINCE_ONSET_VALUE`, 10); `nil`
    /// to leave them unknown (`BACKFILL_DAYS_SINCE_ONSET=false`).
    public var backfillDaysSinceOnset: Int?
    /// The largest |days since onset| of an imported key; keys beyond are dropped (`MAX_SYMPTOM_ONSET_DAYS`, 14).
    public var maximumSymptomOnsetDays: Int
    /// The granularity of the time from which imported keys may be exported (`TRUNCATE_WINDOW`, 1 h).
    public var truncateWindow: TimeInterval
    /// The largest `index.txt` read, in bytes; 1 MiB by default.
    public var maximumIndexBytes: Int
    /// The largest export file read, in bytes; 64 MiB by default (a file of Google's 500,000 keys is about 15 MiB).
    public var maximumFileBytes: Int

    /// Creates a configuration with Google's defaults.
    public init(
        name: String, indexURL: URL, exportRoot: URL, region: String, traveler: Bool = false,
        trustedKeys: [ENExportImportPublicKey], retryInterval: TimeInterval = 6 * 3600,
        backfillReportType: ENDiagnosisReportType = .confirmedTest, backfillDaysSinceOnset: Int? = 10,
        maximumSymptomOnsetDays: Int = 14, truncateWindow: TimeInterval = 3600, maximumIndexBytes: Int = 1 << 20,
        maximumFileBytes: Int = 64 << 20
    ) {
        self.name = name
        self.indexURL = indexURL
        self.exportRoot = exportRoot
        self.region = region
        self.traveler = traveler
        self.trustedKeys = trustedKeys
        self.retryInterval = retryInterval
        self.backfillReportType = backfillReportType
        self.backfillDaysSinceOnset = backfillDaysSinceOnset
        self.maximumSymptomOnsetDays = maximumSymptomOnsetDays
        self.truncateWindow = truncateWindow
        self.maximumIndexBytes = maximumIndexBytes
        self.maximumFileBytes = maximumFileBytes
    }

    /// Refuses a configuration an importer cannot follow.
    ///
    /// - Throws: `ENError.Code.badParameter` naming the field: an empty name, a region that cannot be one, no
    ///   trusted key, URLs that are not `http` or `https`, a retry interval or truncate window that is not positive.
    public func validate() throws(ENError) {
        guard !name.isEmpty, name.utf8.count <= 200 else {
            throw .badParameter("the import's name must have 1 to 200 bytes", context: .init(field: "name"))
        }
        do {
            try ENKeyServerKeyOrigin.validate(region: region)
        } catch {
            throw .badParameter(error.reason, context: .init(field: "region"))
        }
        guard !trustedKeys.isEmpty else {
            throw .badParameter(
                "an import needs the public keys of the other server's files: it imports only verified files",
                context: .init(field: "trustedKeys"))
        }
        for (field, url) in [("indexURL", indexURL), ("exportRoot", exportRoot)] {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
                throw .badParameter(
                    "\(url.absoluteString) is not an http or https URL", context: .init(field: field))
            }
        }
        guard retryInterval.isFinite, retryInterval > 0, truncateWindow.isFinite, truncateWindow >= 1 else {
            throw .badParameter(
                "the retry interval and the truncate window must be positive", context: .init(field: "retryInterval"))
        }
    }

    /// The keys trusted at `date`, as Google's `AllowedKeys` lists them (the latest `thru` first; keys without one
    /// first of all).
    ///
    /// - Throws: `ENError.Code.badParameter` when no key is trusted any more at `date`.
    func verificationKeys(at date: Date) throws(ENError) -> [ENExportVerificationKey] {
        let trusted = trustedKeys.filter { $0.isTrusted(at: date) }
        guard !trusted.isEmpty else {
            throw .badParameter(
                "no public key of the import is trusted at \(date.ISO8601Format()): every one's thru has passed",
                context: .init(field: "trustedKeys"))
        }
        return trusted.map(\.verificationKey)
    }

    /// The URLs of the files `index` lists, as Google's `buildArchiveURLs` makes them
    /// (`internal/exportimport/handle_schedule.go`): each entry joined to the export root's path. The entries are
    /// read as a phone reads them (`ExportIndex`): a name that is not a plain relative path to a `.zip` file (one
    /// that would leave the export root included) refuses the index.
    ///
    /// - Throws: `ENError.Code.badFormat` naming the line.
    func fileURLs(index: Data) throws(ENError) -> [String] {
        var root = exportRoot.absoluteString
        while root.hasSuffix("/") { root.removeLast() }
        return try ExportIndex.entries(in: index, source: indexURL.absoluteString).map { root + "/" + $0 }
    }
}
