public import ENCore

/// The aggregated attenuations of one key's advertisements received during one scan (Apple's `ENScanInstance`).
public struct ENScanInstance: Hashable, Sendable, Codable {
    /// The smallest attenuation of the key's advertisements received during the scan.
    public var minimumAttenuation: ENAttenuation
    /// The aggregate attenuation of the scan: the rounded mean, in dB. Version 2 scoring buckets by this value.
    public var typicalAttenuation: ENAttenuation
    /// The seconds since the previous scan: the time this scan stands for. A negative value (possible in
    /// hand-written input) counts as 0.
    public var secondsSinceLastScan: Int

    /// Creates a scan instance.
    public init(minimumAttenuation: ENAttenuation, typicalAttenuation: ENAttenuation, secondsSinceLastScan: Int) {
        self.minimumAttenuation = minimumAttenuation
        self.typicalAttenuation = typicalAttenuation
        self.secondsSinceLastScan = secondsSinceLastScan
    }

    /// Creates a scan instance from a scan of matched sightings.
    public init(_ scan: ENSightingScan) {
        self.init(
            minimumAttenuation: scan.minimumAttenuation, typicalAttenuation: scan.typicalAttenuation,
            secondsSinceLastScan: scan.secondsSinceLastScan)
    }
}
