/// A diagnosis key together with every sighting that matched it: the matcher's output, the risk modules' input.
public struct ENKeyMatch: Hashable, Sendable {
    /// The diagnosis key.
    public var key: ENTemporaryExposureKey
    /// The matched sightings, in time order.
    public var sightings: [ENMatchedSighting]

    /// Creates a match; sightings are sorted by time.
    public init(key: ENTemporaryExposureKey, sightings: [ENMatchedSighting]) {
        self.key = key
        self.sightings = sightings.sorted { $0.timestamp < $1.timestamp }
    }
}
