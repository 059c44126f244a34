import ENCore
import ENCrypto
import ENTestSupport
import Foundation
import Testing

@testable import ENMatching

/// Planted sightings: the matcher must find exactly these, on every kernel the CPU supports.
@Suite("Planted matches")
struct PlantedMatchTests {
    static let kernels = ENMatchingKernel.supported

    @Test("window edges: +-12 intervals match, +-13 do not", arguments: kernels)
    func windowEdges(kernel: ENMatchingKernel) throws {
        let key = try TestData.key(start: TestData.day)
        let sightings = [
            try TestData.sighting(of: key, offset: 10, drift: 12),
            try TestData.sighting(of: key, offset: 10, drift: -12),
            try TestData.sighting(of: key, offset: 10, drift: 13),
            try TestData.sighting(of: key, offset: 10, drift: -13),
            try TestData.sighting(of: key, offset: 0, drift: -12),  // before the key's validity
            try TestData.sighting(of: key, offset: 143, drift: 12),  // after it
            try TestData.sighting(of: key, offset: 0, drift: -13),
            try TestData.sighting(of: key, offset: 143, drift: 13),
        ]
        let result = try ENMatcher(sightings: sightings).match([key], options: .init(kernel: kernel))
        #expect(result.matches.count == 1)
        let matched = try #require(result.matches.first)
        #expect(matched.key == key)
        #expect(Set(matched.sightings.map(\.sighting)) == Set([0, 1, 4, 5].map { sightings[$0] }))
        #expect(
            matched.sightings.map(\.derivedInterval).sorted() == [0, 10, 10, 143].map { TestData.day + $0 })
        #expect(
            TestData.pairs(result, sightings: sightings)
                == (try ReferenceMatcher.match(chunks: [[key]], sightings: sightings)))
    }

    @Test("only a key's own sightings just outside its validity window: +-13 never match", arguments: kernels)
    func keyWindowSkip(kernel: ENMatchingKernel) throws {
        let key = try TestData.key(start: TestData.day + 5, period: 20)
        let sightings = [
            try TestData.sighting(of: key, offset: 0, drift: -13),
            try TestData.sighting(of: key, offset: 19, drift: 13),
        ]
        let result = try ENMatcher(sightings: sightings).match([key], options: .init(kernel: kernel))
        #expect(result.matches.isEmpty)
        #expect(result.statistics.keysDerived == 0)  // nothing near: skipped before any cryptography
    }

    @Test("only the intervals within 12 of a sighting are derived, and their matches are all found", arguments: kernels)
    func derivationWindow(kernel: ENMatchingKernel) throws {
        // (sightings as (offset, drift) of the key's own identifiers, the derived part of its 144 intervals)
        let cases: [(sightings: [(Int, Int)], derived: Range<Int>)] = [
            ([(50, 0)], 38..<63),  // one sighting mid-day: 12 either side
            ([(0, -12)], 0..<1),  // 12 before the validity: only interval 0 can match it
            ([(143, 12)], 143..<144),  // 12 after it: only interval 143
            ([(3, 0), (130, 1)], 0..<144),  // two far apart: everything in between (one run per key)
            ([(20, -12), (30, 12)], 0..<55),  // interval 8 observed: from 0 (clipped); interval 42: to 54
        ]
        for (sightingSpecs, derived) in cases {
            let key = try TestData.key(start: TestData.day)
            let sightings = try sightingSpecs.map { try TestData.sighting(of: key, offset: $0.0, drift: $0.1) }
            let result = try ENMatcher(sightings: sightings).match([key], options: .init(kernel: kernel))
            #expect(result.statistics.keysDerived == 1)
            #expect(result.statistics.identifiersDerived == derived.count, "\(sightingSpecs)")
            #expect(result.matchedSightingCount == sightings.count, "\(sightingSpecs)")
            #expect(
                TestData.pairs(result, sightings: sightings)
                    == (try ReferenceMatcher.match(chunks: [[key]], sightings: sightings)))
        }
    }

    @Test("unaligned rolling starts and periods below 144", arguments: kernels)
    func unalignedShortPeriod(kernel: ENMatchingKernel) throws {
        let key = try TestData.key(start: TestData.day + 37, period: 50)
        let sightings = [
            try TestData.sighting(of: key, offset: 0, drift: 0),
            try TestData.sighting(of: key, offset: 49, drift: 12),
            try TestData.sighting(of: key, offset: 50, drift: 0),  // beyond the period: never derived
            try TestData.sighting(of: key, offset: 51, drift: -2),
        ]
        let result = try ENMatcher(sightings: sightings).match([key], options: .init(kernel: kernel))
        let matched = try #require(result.matches.first)
        #expect(matched.sightings.map(\.derivedInterval) == [TestData.day + 37, TestData.day + 37 + 49])
        #expect(
            TestData.pairs(result, sightings: sightings)
                == (try ReferenceMatcher.match(chunks: [[key]], sightings: sightings)))
    }

    @Test("same-day keys and repeated sightings of one identifier", arguments: kernels)
    func sameDayKeys(kernel: ENMatchingKernel) throws {
        let keys = try (0..<5).map { _ in try TestData.key(start: TestData.day) }
        var sightings: [ENSighting] = []
        for (k, key) in keys.enumerated() where k != 2 {
            for drift in [-3, 0, 4, 7, 11] {
                sightings.append(try TestData.sighting(of: key, offset: 60 + k, drift: drift))
            }
            sightings.append(try TestData.sighting(of: key, offset: 60 + k, drift: 40))  // too late
        }
        var generator = SeededRandomNumberGenerator.forTest()
        for i in 0..<200 {
            sightings.append(
                TestData.sighting(
                    TestData.randomIdentifier(using: &generator), interval: TestData.day + UInt32(i % 144)))
        }
        sightings.shuffle()
        let result = try ENMatcher(sightings: sightings).match(keys, options: .init(kernel: kernel))
        #expect(result.matches.count == 4)
        #expect(result.matches.allSatisfy { $0.sightings.count == 5 })
        #expect(result.matches.map(\.key) == [keys[0], keys[1], keys[3], keys[4]])  // input order
        for match in result.matches {
            #expect(match.sightings.map(\.timestamp) == match.sightings.map(\.timestamp).sorted())
        }
        #expect(
            TestData.pairs(result, sightings: sightings)
                == (try ReferenceMatcher.match(chunks: [keys], sightings: sightings)))
    }

    @Test("the same key in several files is one key; the first matching occurrence wins", arguments: kernels)
    func duplicatesAcrossChunks(kernel: ENMatchingKernel) throws {
        let key = try TestData.key(start: TestData.day, transmissionRiskLevel: 2)
        var copy = key
        copy.transmissionRiskLevel = 7
        let other = try TestData.key(start: TestData.day + 144)
        let sightings = [
            try TestData.sighting(of: key, offset: 3, drift: 1), try TestData.sighting(of: other, offset: 3, drift: 0),
        ]
        let chunks = [[key], [other, copy], [copy]]
        let result = try ENMatcher(sightings: sightings).match(
            keyChunks: chunks, options: .init(kernel: kernel, batchSize: 2))
        #expect(result.matches.map(\.key) == [key, other])
        #expect(result.matches[0].key.transmissionRiskLevel == 2)
        #expect(result.matches[0].sightings.count == 1)
        #expect(result.statistics.matchesDropped == 2)
        #expect(result.statistics.keysReceived == 4)
        #expect(
            TestData.pairs(result, sightings: sightings)
                == (try ReferenceMatcher.match(chunks: chunks, sightings: sightings)))
    }

    @Test("revoked keys never match and cancel the same key elsewhere", arguments: kernels)
    func revoked(kernel: ENMatchingKernel) throws {
        let reported = try TestData.key(start: TestData.day)
        var revocation = reported
        revocation.diagnosisReportType = .revoked
        let onlyRevoked = try TestData.key(start: TestData.day, reportType: .revoked)
        let kept = try TestData.key(start: TestData.day)
        let sightings = try [reported, onlyRevoked, kept].map { try TestData.sighting(of: $0, offset: 20, drift: 0) }
        let chunks = [[reported, onlyRevoked], [kept], [revocation]]
        let result = try ENMatcher(sightings: sightings).match(keyChunks: chunks, options: .init(kernel: kernel))
        #expect(result.matches.map(\.key) == [kept])
        #expect(result.statistics.keysRevoked == 2)
        #expect(
            TestData.pairs(result, sightings: sightings)
                == (try ReferenceMatcher.match(chunks: chunks, sightings: sightings)))
    }

    @Test("keys with period 0, period above 144 or bad key data are ignored", arguments: kernels)
    func ignoredKeys(kernel: ENMatchingKernel) throws {
        let zero = try TestData.key(start: TestData.day, period: 0)
        let long = try TestData.key(start: TestData.day, period: 145)
        var short = try TestData.key(start: TestData.day)
        let sightings = try [zero, long, short].map { try TestData.sighting(of: $0, offset: 0, drift: 0) }
        short.keyData = short.keyData.prefix(15)
        let result = try ENMatcher(sightings: sightings).match([zero, long, short], options: .init(kernel: kernel))
        #expect(result.matches.isEmpty)
        #expect(result.statistics.keysIgnored == 3)
        #expect(result.statistics.keysDerived == 0)
    }

    @Test("transmit power comes from the metadata decrypted with the key's AEMK", arguments: kernels)
    func metadata(kernel: ENMatchingKernel) throws {
        let key = try TestData.key(start: TestData.day)
        let metadataKey = try AssociatedEncryptedMetadataKey(temporaryExposureKey: key)
        let rpi1 = try TestData.identifier(key, offset: 30)
        let rpi2 = try TestData.identifier(key, offset: 31)
        let sightings = [
            TestData.sighting(
                rpi1, interval: TestData.day + 30,
                aem: try metadataKey.encrypt(BluetoothMetadata(txPower: -20), for: rpi1),
                rssi: -70),
            TestData.sighting(
                rpi2, interval: TestData.day + 31,
                aem: try metadataKey.encrypt(BluetoothMetadata(txPower: 8, majorVersion: 2), for: rpi2), rssi: -70),
        ]
        let result = try ENMatcher(sightings: sightings).match([key], options: .init(kernel: kernel))
        let matched = try #require(result.matches.first).sightings
        #expect(matched.count == 2)
        #expect(matched[0].txPower == -20)
        #expect(matched[0].attenuation == 50)
        #expect(matched[1].txPower == nil)  // unsupported metadata version
    }

    @Test("the official test vector key matches its published identifiers", arguments: kernels)
    func officialVector(kernel: ENMatchingKernel) throws {
        let key = ENTemporaryExposureKey(
            keyData: KernelVectorTests.temporaryExposureKey,
            rollingStartNumber: ENIntervalNumber(KernelVectorTests.start))
        let sightings = try KernelVectorTests.identifiers.map { offset, hex in
            TestData.sighting(
                try RollingProximityIdentifier(hexString: hex), interval: KernelVectorTests.start + UInt32(offset))
        }
        let result = try ENMatcher(sightings: sightings).match([key], options: .init(kernel: kernel))
        #expect(result.matchedSightingCount == KernelVectorTests.identifiers.count)
        let derived = Set(try #require(result.matches.first).sightings.map(\.derivedInterval))
        #expect(derived == Set(KernelVectorTests.identifiers.keys.map { KernelVectorTests.start + UInt32($0) }))
    }
}
