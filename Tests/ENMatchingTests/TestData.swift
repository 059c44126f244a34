import ENCore
import ENCrypto
import ENTestSupport
import Foundation

@testable import ENMatching

/// Helpers that build keys and sightings with ENCrypto (the independent OpenSSL path).
enum TestData {
    /// A day start (a multiple of 144) in 2020.
    static let day: UInt32 = 2_650_032

    static func key(
        start: UInt32, period: UInt32 = 144, reportType: ENDiagnosisReportType = .confirmedTest,
        transmissionRiskLevel: UInt8 = 4
    ) throws -> ENTemporaryExposureKey {
        TestKeys.fresh(
            start: ENIntervalNumber(start), period: period, transmissionRiskLevel: transmissionRiskLevel,
            reportType: reportType)
    }

    /// The identifier `key` broadcasts `offset` intervals after its rolling start (also beyond its period).
    static func identifier(_ key: ENTemporaryExposureKey, offset: Int) throws -> RollingProximityIdentifier {
        try RollingProximityIdentifierKey(keyData: key.keyData)
            .identifier(for: key.rollingStartNumber.adding(offset))
    }

    /// A sighting of `rpi` in the middle of `interval`.
    static func sighting(
        _ rpi: RollingProximityIdentifier, interval: UInt32, aem: AssociatedEncryptedMetadata = .init(rawValue: 0),
        rssi: Int8 = -60
    ) -> ENSighting {
        ENSighting(
            rpi: rpi, aem: aem, timestamp: ENIntervalNumber(interval).date.addingTimeInterval(300), rssi: rssi)
    }

    /// A sighting of the identifier of `key` at `offset`, observed `drift` intervals away from it.
    static func sighting(of key: ENTemporaryExposureKey, offset: Int, drift: Int) throws -> ENSighting {
        let derived = Int(key.rollingStartNumber) + offset
        return sighting(try identifier(key, offset: offset), interval: UInt32(derived + drift))
    }

    static func randomIdentifier<G: RandomNumberGenerator>(using generator: inout G) -> RollingProximityIdentifier {
        RollingProximityIdentifier(lowWord: generator.next(), highWord: generator.next())
    }

    /// One matched pair in a comparable form: key data, sighting position, derived interval.
    struct Pair: Hashable, Comparable, CustomStringConvertible {
        var keyData: String
        var sighting: Int
        var derived: UInt32
        static func < (a: Pair, b: Pair) -> Bool {
            (a.keyData, a.sighting, a.derived) < (b.keyData, b.sighting, b.derived)
        }
        var description: String { "\(keyData.prefix(8))/\(sighting)@\(derived)" }
    }

    /// The pairs of a result; sightings are located by identity in `sightings` (a multiset comparison).
    static func pairs(_ result: ENMatchingResult, sightings: [ENSighting]) -> [Pair] {
        var positions: [ENSighting: [Int]] = [:]
        for (i, s) in sightings.enumerated() { positions[s, default: []].append(i) }
        var used: [ENSighting: Int] = [:]
        var pairs: [Pair] = []
        for match in result.matches {
            for matched in match.sightings {
                let k = used[matched.sighting, default: 0]
                used[matched.sighting] = k + 1
                let list = positions[matched.sighting] ?? []
                let position = k < list.count ? list[k] : -1
                pairs.append(
                    Pair(
                        keyData: match.key.keyData.hexString, sighting: position,
                        derived: matched.derivedInterval))
            }
        }
        return pairs.sorted()
    }
}

/// A straightforward matcher written from the rules, with no index, no filter and no kernel: every key's
/// identifiers (ENCrypto) against every sighting.
enum ReferenceMatcher {
    static func match(chunks: [[ENTemporaryExposureKey]], sightings: [ENSighting]) throws -> [TestData.Pair] {
        let keys = chunks.flatMap { $0 }
        var occurrences: [(key: ENTemporaryExposureKey, pairs: [TestData.Pair])] = []
        for key in keys {
            guard key.keyData.count == 16, (1...144).contains(key.rollingPeriod) else { continue }
            let ids = try RollingProximityIdentifierKey(keyData: key.keyData)
                .identifiers(startingAt: key.rollingStartNumber, count: Int(key.rollingPeriod))
            var pairs: [TestData.Pair] = []
            for (i, id) in ids.enumerated() {
                let derived = Int(key.rollingStartNumber) + i
                for (s, sighting) in sightings.enumerated()
                where sighting.rpi == id && abs(Int(sighting.interval) - derived) <= 12 {
                    pairs.append(TestData.Pair(keyData: key.keyData.hexString, sighting: s, derived: UInt32(derived)))
                }
            }
            if !pairs.isEmpty { occurrences.append((key, pairs)) }
        }
        let revoked = Set(occurrences.filter { $0.key.diagnosisReportType == .revoked }.map(\.key.keyData))
        var seen = Set<Data>()
        var result: [TestData.Pair] = []
        for occurrence in occurrences
        where !revoked.contains(occurrence.key.keyData) && seen.insert(occurrence.key.keyData).inserted {
            result += occurrence.pairs
        }
        return result.sorted()
    }
}
