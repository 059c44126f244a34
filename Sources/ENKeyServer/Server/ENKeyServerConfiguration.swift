public import ENCore
public import ENExportFormat
public import Foundation

/// What an ``ENDiagnosisKeyServer`` or ``ENKeyServerExporter`` publishes: the region and signing keys of its files, their size limit, how long keys
/// and files are kept, the exposure configuration it serves, and how it cuts export batches (see
/// <doc:GettingStartedWithENKeyServer#Export-batches>).
public struct ENKeyServerConfiguration: Sendable {
    /// The region written into every export file, for example `"310"` (an MCC) or `"US"`.
    public var region: String
    /// Who signs the files: at most ten signers, the newest key first (iOS checks only the first signature;
    /// Google orders its `SignatureInfo`s newest first). Each file carries the signatures of the signers active
    /// at the moment it is exported (`ENExportSigner.isActive(at:)` by the exporter's clock), in this order, so
    /// a key rotation needs no restart: a new key signs from its `activeFrom`, an old one stops after its
    /// `activeUntil`, and in between every file carries both.
    public var signers: [ENExportSigner]
    /// The most keys (new plus revised) in one export file; a larger batch is split. Default 500,000 (Google's
    /// `EXPORT_FILE_MAX_RECORDS`).
    public var maximumKeysPerFile: Int
    /// How long keys and files are kept, in seconds. Default 14 days.
    public var retention: TimeInterval
    /// The exposure configuration served by `ENKeyServer.exposureConfigurationJSON()`.
    public var exposureConfiguration: ENExposureConfiguration
    /// The length of an export batch in seconds, dividing 24 hours (Google recommends 4 hours, 14,400), batches
    /// aligned to it in UTC; `nil` (the default) for no period: each `ENKeyServer.publish()` exports everything
    /// waiting at once, in one batch.
    public var exportPeriod: TimeInterval?
    /// How long after its end a batch with an ``exportPeriod`` is cut, in seconds. Default 2 hours (Google's
    /// `MIN_WINDOW_AGE`).
    public var minimumWindowAge: TimeInterval
    /// The random keys a batch with few new keys is padded with; `nil` for none. Default Google's.
    public var padding: ENExportPadding?
    /// Where files are also written as Google's server lays them out, `exportDirectory/exportRoot/NAME` with
    /// `exportDirectory/exportRoot/index.txt`; `nil` (the default) to keep them only in the store.
    public var exportDirectory: URL?
    /// The folder of the files and `index.txt` under ``exportDirectory``, and the prefix of the names in
    /// `index.txt` (Google's `FilenameRoot`); empty (the default) for none.
    public var exportRoot: String
    /// How long an exporter holds a batch it claimed, in seconds; a batch whose exporter crashed is redone after
    /// it. Default 15 minutes.
    public var exportLeaseDuration: TimeInterval
    /// Which stored keys the files carry, by their regions and traveller flag; by default the keys published for
    /// ``region``.
    public var selection: ENExportSelection
    /// The name the storage keeps this export configuration's batches, files and export marks under; empty (the
    /// default) for the default configuration, the one a server with a single configuration has and the one
    /// ``ENDiagnosisKeyServer``'s file index API serves. Several configurations on one storage (see
    /// ``ENKeyServerExportGroup``) each have their own name: letters, digits, `.`, `_` and `-`, at most 64.
    public var exportName: String

    /// Creates a configuration.
    public init(
        region: String, signers: [ENExportSigner], maximumKeysPerFile: Int = 500_000,
        retention: TimeInterval = 14 * 86_400,
        exposureConfiguration: ENExposureConfiguration = ENExposureConfiguration(),
        exportPeriod: TimeInterval? = nil, minimumWindowAge: TimeInterval = 2 * 3600,
        padding: ENExportPadding? = .googleServer, exportDirectory: URL? = nil, exportRoot: String = "",
        exportLeaseDuration: TimeInterval = 15 * 60, selection: ENExportSelection = ENExportSelection(),
        exportName: String = ""
    ) {
        self.exportName = exportName
        self.region = region
        self.signers = signers
        self.maximumKeysPerFile = maximumKeysPerFile
        self.retention = retention
        self.exposureConfiguration = exposureConfiguration
        self.exportPeriod = exportPeriod
        self.minimumWindowAge = minimumWindowAge
        self.padding = padding
        self.exportDirectory = exportDirectory
        self.exportRoot = exportRoot
        self.exportLeaseDuration = exportLeaseDuration
        self.selection = selection
    }

    /// The signers of a file exported at `date`: those active then, in the configuration's order.
    ///
    /// - Throws: `ENError.Code.badParameter` when none is: a file is never written unsigned.
    public func activeSigners(at date: Date) throws(ENError) -> [ENExportSigner] {
        let active = signers.filter { $0.isActive(at: date) }
        guard !active.isEmpty || signers.isEmpty else {
            throw ENError(
                .badParameter,
                "no signing key is active at \(date.formatted(.iso8601)): each has ended or not begun "
                    + "(\(signers.map { $0.signatureInfo.verificationKeyVersion ?? "?" }.joined(separator: ", ")))",
                context: .init(section: "signers"))
        }
        return active
    }
}
