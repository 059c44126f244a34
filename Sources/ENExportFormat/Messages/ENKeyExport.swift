public import ENCore
public import Foundation

/// The contents of an `export.bin`: the `TemporaryExposureKeyExport` message after the 16-byte header.
///
/// Optional properties are `nil` when the field is absent from the file. Keys carry their effective values:
/// an absent rolling period reads as 144, absent days since onset as `ENDaysSinceOnsetOfSymptomsUnknown`.
///
/// ```swift
/// let export = try ENKeyExport(exportBinary: archive.exportBinary)
/// print(export.region ?? "-", export.keys.count)
/// ```
///
/// For very large files, ``ENExportKeyScanner`` reads the keys in chunks instead of all at once.
public struct ENKeyExport: Hashable, Sendable {
    /// The 16 bytes every `export.bin` starts with: `"EK Export v1"` and four spaces.
    public static let header = Data("EK Export v1    ".utf8)

    /// The start of the window in which the keys arrived at the server, in UTC seconds since 1970.
    public var startTimestamp: UInt64?
    /// The end of the window in which the keys arrived at the server, in UTC seconds since 1970.
    public var endTimestamp: UInt64?
    /// Where the keys came from, for example `"US"`, `"DE"` or an MCC.
    public var region: String?
    /// The 1-based batch number (1 in practice).
    public var batchNumber: Int?
    /// The batch size (1 in practice).
    public var batchSize: Int?
    /// Information about the signatures in `export.sig`, most recent signing key first.
    public var signatureInfos: [ENExportSignatureInfo]
    /// Keys released for the first time (field 7).
    public var keys: [ENTemporaryExposureKey]
    /// Keys released earlier whose status changed, for example revoked (field 8).
    public var revisedKeys: [ENTemporaryExposureKey]

    /// Creates export contents.
    public init(
        startTimestamp: UInt64? = nil,
        endTimestamp: UInt64? = nil,
        region: String? = nil,
        batchNumber: Int? = 1,
        batchSize: Int? = 1,
        signatureInfos: [ENExportSignatureInfo] = [],
        keys: [ENTemporaryExposureKey] = [],
        revisedKeys: [ENTemporaryExposureKey] = []
    ) {
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.region = region
        self.batchNumber = batchNumber
        self.batchSize = batchSize
        self.signatureInfos = signatureInfos
        self.keys = keys
        self.revisedKeys = revisedKeys
    }

    /// ``startTimestamp`` as a date.
    public var startDate: Date? { startTimestamp.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
    /// ``endTimestamp`` as a date.
    public var endDate: Date? { endTimestamp.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
}
