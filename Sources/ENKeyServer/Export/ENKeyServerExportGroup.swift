public import ENCore
public import Foundation

/// Several export configurations on one storage, as Google's server runs several `ExportConfig`s: each with its own
/// name, output region, key selection, period, signing keys and file root, its own batches and files, and its own
/// `ROOT/index.txt`.
///
/// Each configuration exports each key it selects once, and each revision once, whatever the other configurations
/// did with them: a key may go into the files of several configurations. Batches are claimed under leases per
/// configuration, so several instances may run one group on one storage.
///
/// ```swift
/// let group = try ENKeyServerExportGroup(storage: storage, configurations: [
///     ENKeyServerConfiguration(region: "US", signers: [us], exportRoot: "us",
///         selection: ENExportSelection(onlyNonTravelers: true)),
///     ENKeyServerConfiguration(region: "CA", signers: [ca], exportRoot: "ca",
///         selection: ENExportSelection(inputRegions: ["CA", "US"], includesTravelers: true), exportName: "ca"),
/// ])
/// let newFiles = try await group.publish()        // every few minutes: every configuration's due batches
/// ```
public struct ENKeyServerExportGroup: Sendable {
    /// One exporter per configuration, in the order given.
    public let exporters: [ENKeyServerExporter]

    /// Creates a group on `storage`.
    ///
    /// - Parameters:
    ///   - storage: the key server's storage.
    ///   - configurations: at least one; the first is the server's main configuration (what
    ///     ``ENDiagnosisKeyServer``'s file index API serves when it is the default one, with an empty
    ///     ``ENKeyServerConfiguration/exportName``).
    ///   - clock: the current date; the system clock by default.
    ///   - exporterID: the lease owner's name; a new UUID by default.
    /// - Throws: `ENError.Code.badParameter` naming the configuration (`context.index`) when there is none, when its
    ///   export settings are refused (``ENKeyServerConfiguration/validateExportSettings()``), when two have one
    ///   ``ENKeyServerConfiguration/exportName``, when two write to one folder of one export directory or list
    ///   their files under one root, or when their ``ENKeyServerConfiguration/retention`` differs (retention drops
    ///   the keys of every configuration at once).
    public init(
        storage: any ENKeyServerExportStorage, configurations: [ENKeyServerConfiguration],
        clock: @escaping @Sendable () -> Date = { Date() }, exporterID: String = UUID().uuidString
    ) throws(ENError) {
        try Self.validate(configurations)
        exporters = configurations.map {
            ENKeyServerExporter(storage: storage, configuration: $0, clock: clock, exporterID: exporterID)
        }
    }

    /// Checks `configurations` as ``init(storage:configurations:clock:exporterID:)`` does, before any storage is
    /// opened.
    ///
    /// - Throws: `ENError.Code.badParameter`, as the initialiser throws.
    public static func validate(_ configurations: [ENKeyServerConfiguration]) throws(ENError) {
        guard let first = configurations.first else {
            throw .badParameter(
                "an export group needs at least one configuration", context: .init(field: "configurations"))
        }
        var names = Set<String>()
        var roots = Set<String>()
        var folders = Set<String>()
        for (index, configuration) in configurations.enumerated() {
            do {
                try configuration.validateExportSettings()
            } catch {
                throw ENError(
                    .badParameter, "export configuration '\(configuration.exportName)': \(error.reason)",
                    context: .init(section: "configurations", index: index, field: error.context.field))
            }
            func refuse(_ reason: String, _ field: String) -> ENError {
                .badParameter(reason, context: .init(section: "configurations", index: index, field: field))
            }
            guard names.insert(configuration.exportName).inserted else {
                throw refuse("two export configurations are named '\(configuration.exportName)'", "exportName")
            }
            guard roots.insert(configuration.exportRoot).inserted else {
                throw refuse(
                    "two export configurations list their files under the root '\(configuration.exportRoot)'",
                    "exportRoot")
            }
            if let folder = ExportDirectory(configuration)?.folder.standardizedFileURL.path {
                guard folders.insert(folder).inserted else {
                    throw refuse("two export configurations write to the folder \(folder)", "exportDirectory")
                }
            }
            guard configuration.retention == first.retention else {
                throw refuse(
                    "every export configuration keeps keys and files as long as the first "
                        + "(\(first.retention) s), got \(configuration.retention) s", "retention")
            }
        }
    }

    /// A group of `exporters` as they are, unchecked: for callers that built them from a checked group.
    package init(checkedExporters exporters: [ENKeyServerExporter]) {
        self.exporters = exporters
    }

    /// The configurations, in the order given.
    public var configurations: [ENKeyServerConfiguration] { exporters.map(\.configuration) }

    /// The exporter of the configuration named `exportName`, or `nil`.
    public func exporter(named exportName: String) -> ENKeyServerExporter? {
        exporters.first { $0.configuration.exportName == exportName }
    }

    /// Exports every configuration's due batches (``ENKeyServerExporter/publish()``), in the order given, and
    /// returns the new files of each, by ``ENKeyServerConfiguration/exportName``.
    ///
    /// - Throws: the first configuration's error; the configurations after it are not exported this time (those
    ///   before it stay exported).
    public func publish() async throws(ENError) -> [String: [ENKeyServerFile]] {
        var published: [String: [ENKeyServerFile]] = [:]
        for exporter in exporters {
            published[exporter.configuration.exportName] = try await exporter.publish()
        }
        return published
    }

    /// Drops the keys that arrived more than the retention period ago and every configuration's files of batches
    /// that ended before it, in the storage and in each export directory (each `index.txt` rewritten before its
    /// files go); returns how many keys were dropped.
    @discardableResult
    public func deleteExpired() async throws(ENError) -> Int {
        guard let first = exporters.first else { return 0 }
        let cutoff = first.retentionCutoff
        var expired: [[String]] = []
        for exporter in exporters { expired.append(try await exporter.expiredFileNames(before: cutoff)) }
        let deleted = try await first.storage.deleteExpired(before: cutoff)
        for (exporter, names) in zip(exporters, expired) { try await exporter.removeExpiredFiles(names) }
        return deleted
    }
}
