/// What the receiving phone measured during an encounter.
///
/// `sightings` observations are turned into ``exposureWindows(_:)`` when they are read (the package's own scan
/// and window rules); so are `rssiSeries` observations, after an ``ENScanModel`` has sampled them into scans.
public enum ENObservation: Hashable, Sendable {
    /// Time per attenuation bin: one exposure of one key on one day.
    case attenuationHistogram(ENAttenuationHistogram)
    /// Exposure windows, as `getExposureWindows` returns them (or as built from sightings).
    case exposureWindows([ENObservedWindow])

    /// Whether the observation has only one placement (windows), or three (histograms with wide bins).
    public var isDeterminate: Bool {
        switch self {
        case .attenuationHistogram(let histogram): histogram.isDeterminate
        case .exposureWindows: true
        }
    }
}
