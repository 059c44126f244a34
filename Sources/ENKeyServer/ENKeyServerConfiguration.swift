public import ENCore
public import ENExportFormat
public import Foundation

/// What an ``ENKeyServer`` publishes: the region and signing keys of its files, their size limit, how long keys
/// and files are kept, and the exposure configuration it serves.
public struct ENKeyServerConfiguration: Sendable {
    /// The region written into every export file, for example `"310"` (an MCC) or `"US"`.
    public var region: String
    /// Who signs every file, the current key first (iOS checks only the first signature). One to ten signers.
    public var signers: [ENExportSigner]
    /// The most keys (new plus revised) in one export file; a larger batch is split. Default 750,000.
    public var maximumKeysPerFile: Int
    /// How long keys and files are kept, in seconds. Default 14 days.
    public var retention: TimeInterval
    /// The exposure configuration served by `ENKeyServer.exposureConfigurationJSON()`.
    public var exposureConfiguration: ENExposureConfiguration

    /// Creates a configuration.
    public init(
        region: String, signers: [ENExportSigner], maximumKeysPerFile: Int = 750_000,
        retention: TimeInterval = 14 * 86_400,
        exposureConfiguration: ENExposureConfiguration = ENExposureConfiguration()
    ) {
        self.region = region
        self.signers = signers
        self.maximumKeysPerFile = maximumKeysPerFile
        self.retention = retention
        self.exposureConfiguration = exposureConfiguration
    }
}
