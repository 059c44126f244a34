internal import ENCore
internal import ENCrypto
internal import Foundation

/// Collects the kernel's hits across batches, then applies de-duplication and revocation and decrypts the
/// metadata of the matched sightings (only matched keys reach this point, so this is off the hot path).
struct MatchCollector {
    private struct Occurrence {
        var key: ENTemporaryExposureKey
        var hits: [(sightingIndex: Int, derivedInterval: ENIntervalNumber)] = []
    }

    /// Matched key occurrences by input position.
    private var occurrences: [Int: Occurrence] = [:]

    /// The number of matched key occurrences so far.
    var occurrenceCount: Int { occurrences.count }

    init() {}

    /// A collector holding `occurrences` (their hits in any order).
    init(occurrences: [ENMatchOccurrence]) {
        for occurrence in occurrences {
            self.occurrences[occurrence.ordinal, default: Occurrence(key: occurrence.key)].hits += occurrence.hits.map {
                ($0.sightingIndex, $0.derivedInterval)
            }
        }
    }

    /// Every matched key occurrence so far, by ordinal.
    var all: [ENMatchOccurrence] {
        occurrences.sorted { $0.key < $1.key }.map { ordinal, occurrence in
            ENMatchOccurrence(
                ordinal: ordinal, key: occurrence.key,
                hits: occurrence.hits.map { ENMatchOccurrence.Hit(sightingIndex: $0.0, derivedInterval: $0.1) })
        }
    }

    mutating func add(ordinal: Int, key: ENTemporaryExposureKey, sightingIndex: Int, derivedInterval: ENIntervalNumber)
    {
        occurrences[ordinal, default: Occurrence(key: key)].hits.append((sightingIndex, derivedInterval))
    }

    func finish(sightings: [ENSighting], statistics: inout ENMatchingStatistics) throws(ENError) -> [ENKeyMatch] {
        let ordered = occurrences.sorted { $0.key < $1.key }.map(\.value)
        let revoked = Set(ordered.filter { $0.key.diagnosisReportType == .revoked }.map(\.key.keyData))
        var seen = Set<Data>()
        var matches: [ENKeyMatch] = []
        for occurrence in ordered {
            let data = occurrence.key.keyData
            guard !revoked.contains(data), seen.insert(data).inserted else {
                statistics.matchesDropped += 1
                continue
            }
            let metadataKey = try AssociatedEncryptedMetadataKey(temporaryExposureKey: occurrence.key)
            let matched = occurrence.hits.sorted {
                ($0.sightingIndex, $0.derivedInterval) < ($1.sightingIndex, $1.derivedInterval)
            }
            .map { hit in
                let sighting = sightings[hit.sightingIndex]
                let metadata = try? metadataKey.decrypt(sighting.aem, for: sighting.rpi)
                let txPower = metadata.flatMap { $0.isSupportedVersion ? $0.txPower : nil }
                return ENMatchedSighting(sighting: sighting, derivedInterval: hit.derivedInterval, txPower: txPower)
            }
            matches.append(ENKeyMatch(key: occurrence.key, sightings: matched))
        }
        return matches
    }
}
