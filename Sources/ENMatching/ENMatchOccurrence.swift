package import ENCore

/// One matched occurrence of a key in a matching run, before de-duplication and revocation: the key, its position
/// in the run's input, and the sightings it hit.
///
/// A caller that keeps occurrences between runs (``ENMatcher/occurrences(encodedChunks:options:)``) can combine
/// them with the occurrences of a later run and apply the rules once (``ENMatcher/matches(of:)``): a hit depends
/// only on the key and the sighting's identifier and time, so the occurrences of the same keys against other
/// sightings are found by matching those sightings alone.
package struct ENMatchOccurrence: Sendable {
    /// One hit: a sighting of the run's matcher and the interval the key derived its identifier for.
    package struct Hit: Hashable, Sendable {
        /// The sighting's index in the matcher's ``ENMatcher/sightings``.
        package var sightingIndex: Int
        /// The interval whose identifier matched.
        package var derivedInterval: ENIntervalNumber

        /// Creates a hit.
        package init(sightingIndex: Int, derivedInterval: ENIntervalNumber) {
            self.sightingIndex = sightingIndex
            self.derivedInterval = derivedInterval
        }
    }

    /// The key's position in the input: the earlier position wins among keys with the same key data.
    package var ordinal: Int
    /// The key.
    package var key: ENTemporaryExposureKey
    /// What it hit.
    package var hits: [Hit]

    /// Creates an occurrence.
    package init(ordinal: Int, key: ENTemporaryExposureKey, hits: [Hit]) {
        self.ordinal = ordinal
        self.key = key
        self.hits = hits
    }
}

extension ENMatcher {
    /// Matches encoded keys as ``match(encodedChunks:options:)`` does and returns the matched occurrences, in
    /// input order, without applying de-duplication and revocation; the ordinals count the chunks' keys from 0.
    ///
    /// - Throws: as ``match(encodedChunks:options:)``.
    package func occurrences<Chunks: Sequence>(
        encodedChunks: Chunks, options: ENMatchingOptions = ENMatchingOptions()
    ) throws(ENError) -> [ENMatchOccurrence] where Chunks.Element == any ENEncodedKeyChunk {
        var incremental = ENIncrementalMatch(matcher: self)
        try incremental.add(encodedChunks: encodedChunks, options: options)
        return incremental.occurrences
    }

    /// The matches of `occurrences` (hits on this matcher's sightings) under the rules of
    /// ``match(keyChunks:options:)``: ordered by ordinal, the first occurrence of each key data wins, revoked key
    /// data match nowhere. The same result as matching the occurrences' keys in that order.
    ///
    /// - Throws: as ``ENIncrementalMatch/finish()``.
    package func matches(of occurrences: [ENMatchOccurrence]) throws(ENError) -> [ENKeyMatch] {
        var statistics = ENMatchingStatistics()
        return try MatchCollector(occurrences: occurrences).finish(sightings: sightings, statistics: &statistics)
    }
}
