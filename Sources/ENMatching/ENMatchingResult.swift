public import ENCore

/// The outcome of a matching run: every key that matched with its matched sightings, and statistics.
public struct ENMatchingResult: Sendable {
    /// One entry per distinct matched key (by key data), in input order of its first matching occurrence;
    /// each entry's sightings are sorted by time.
    public var matches: [ENKeyMatch]
    /// What the run did.
    public var statistics: ENMatchingStatistics

    /// Creates a result.
    public init(matches: [ENKeyMatch], statistics: ENMatchingStatistics) {
        self.matches = matches
        self.statistics = statistics
    }

    /// The total number of matched (key, sighting) pairs.
    public var matchedSightingCount: Int { matches.reduce(0) { $0 + $1.sightings.count } }
}
