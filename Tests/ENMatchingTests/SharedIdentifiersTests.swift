import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

@testable import ENMatching

/// The identifiers of a file derived once (``ENSharedIdentifiers``) give every matcher the occurrences the kernel
/// finds in the same file: the same keys at the same positions, the same hits, whatever the retention cut-off.
@Suite("Identifiers derived once per file")
struct SharedIdentifiersTests {
    /// A file with revised and revoked keys, the same key data twice, keys of every period, keys that end before
    /// the cut-off, and key messages the decoder refuses; sightings on and beyond the tolerance.
    private static func fixture() throws -> (exportBinary: Data, sightings: [ENSighting]) {
        var generator = SeededRandomNumberGenerator.forTest()
        var keys: [ENTemporaryExposureKey] = []
        for _ in 0..<400 {
            let day = UInt32.random(in: 0..<20, using: &generator)
            keys.append(
                try TestData.key(
                    start: TestData.day + day * 144, period: UInt32.random(in: 1...144, using: &generator),
                    reportType: Bool.random(using: &generator) ? .confirmedTest : .revoked))
        }
        keys += keys.prefix(30).map {
            var key = $0; key.transmissionRiskLevel = 1; return key
        }
        let revised = keys.suffix(20).map {
            var key = $0; key.diagnosisReportType = .recursive; return key
        }
        var sightings: [ENSighting] = []
        for key in keys.shuffled(using: &generator).prefix(150) {
            let offset = Int.random(in: 0..<Int(key.rollingPeriod), using: &generator)
            sightings.append(
                try TestData.sighting(of: key, offset: offset, drift: Int.random(in: -14...14, using: &generator)))
        }
        for _ in 0..<300 {
            sightings.append(
                TestData.sighting(
                    TestData.randomIdentifier(using: &generator),
                    interval: TestData.day + UInt32.random(in: 0..<(20 * 144), using: &generator)))
        }
        var exportBinary = try ENKeyExport(
            startTimestamp: 1, endTimestamp: 2, region: "310", keys: keys, revisedKeys: revised
        ).exportBinary()
        // Refused key messages: key data of 15 bytes, and a rolling period of 145.
        exportBinary.append(contentsOf: [0x3A, 17, 0x0A, 15] + [UInt8](repeating: 7, count: 15))
        exportBinary.append(
            contentsOf: [0x3A, 21, 0x0A, 16] + [UInt8](repeating: 9, count: 16) + [0x20, 0x91, 0x01])
        return (exportBinary, sightings)
    }

    private struct Found: Hashable {
        var ordinal: Int
        var key: ENTemporaryExposureKey
        var hits: Set<ENMatchOccurrence.Hit>
    }

    private static func found(_ occurrences: [ENMatchOccurrence]) -> Set<Found> {
        Set(occurrences.map { Found(ordinal: $0.ordinal, key: $0.key, hits: Set($0.hits)) })
    }

    @Test(arguments: [0, 5, 12, 19])
    func theSameOccurrencesAsTheKernel(oldestDay: UInt32) throws {
        let (exportBinary, sightings) = try Self.fixture()
        let oldest = ENIntervalNumber(TestData.day + oldestDay * 144)
        let matcher = try ENMatcher(sightings: sightings)
        let kernelChunks = try ENExportKeyScanner.encodedChunks(
            of: exportBinary, ofSize: 64, retainingKeysAfter: oldest)
        let expected = try matcher.occurrences(encodedChunks: kernelChunks.map { $0 as any ENEncodedKeyChunk })

        let shared = ENSharedIdentifiers()
        let hash = SHA256.hash(exportBinary)
        var built = 0
        for _ in 0..<2 {
            let identifiers = try shared.identifiers(of: hash) { () throws(ENError) in
                built += 1
                let chunks = try ENExportKeyScanner.encodedChunks(of: exportBinary, ofSize: 64)
                return (chunks.map { $0 as any ENEncodedKeyChunk }, nil)
            }
            #expect(identifiers.keyCount == kernelChunks.map(\.count).reduce(0, +))
            let occurrences = identifiers.occurrences(for: matcher, oldest: oldest, ordinalBase: 1000)
            if oldestDay < 19 { #expect(!occurrences.isEmpty) }
            #expect(occurrences.map(\.ordinal) == occurrences.map(\.ordinal).sorted())
            #expect(
                Self.found(occurrences)
                    == Self.found(
                        expected.map { ENMatchOccurrence(ordinal: $0.ordinal + 1000, key: $0.key, hits: $0.hits) }))
            // Some of the sightings only: the kernel on a matcher of those alone.
            let some = Array(stride(from: 0, to: sightings.count, by: 3))
            let part = try ENMatcher(sightings: some.map { sightings[$0] })
            let partExpected = try part.occurrences(encodedChunks: kernelChunks.map { $0 as any ENEncodedKeyChunk })
            let partFound = identifiers.occurrences(for: matcher, sightings: some, oldest: oldest)
            #expect(
                Self.found(partFound)
                    == Self.found(
                        partExpected.map {
                            ENMatchOccurrence(
                                ordinal: $0.ordinal, key: $0.key,
                                hits: $0.hits.map {
                                    .init(sightingIndex: some[$0.sightingIndex], derivedInterval: $0.derivedInterval)
                                })
                        }))
        }
        #expect(built == 1, "the second matcher finds the identifiers kept")
        #expect(shared.count == 1)
    }

    /// Over the byte budget, the least recently used file goes first; the file just made stays.
    @Test func theLeastRecentlyUsedFileGoesFirst() throws {
        let (exportBinary, _) = try Self.fixture()
        let chunks = { () throws(ENError) -> (chunks: [any ENEncodedKeyChunk], reach: ClosedRange<UInt32>?) in
            (
                try ENExportKeyScanner.encodedChunks(of: exportBinary, ofSize: 64).map { $0 as any ENEncodedKeyChunk },
                nil
            )
        }
        let size = try ENSharedIdentifiers().identifiers(of: Data([0]), chunks: chunks).byteCount
        let shared = ENSharedIdentifiers(byteBudget: 2 * size + size / 2)
        let (a, b, c) = (Data([1]), Data([2]), Data([3]))
        _ = try shared.identifiers(of: a, chunks: chunks)
        _ = try shared.identifiers(of: b, chunks: chunks)
        _ = try shared.identifiers(of: a, chunks: chunks)
        _ = try shared.identifiers(of: c, chunks: chunks)
        #expect(shared.count == 2)
        var rebuilt: [Data] = []
        for hash in [a, c] {
            _ = try shared.identifiers(of: hash) { () throws(ENError) in
                rebuilt.append(hash)
                return try chunks()
            }
        }
        #expect(rebuilt.isEmpty, "a and c were kept; b went")
        // A budget smaller than one file still keeps the file just made.
        let tiny = ENSharedIdentifiers(byteBudget: 1)
        _ = try tiny.identifiers(of: a, chunks: chunks)
        _ = try tiny.identifiers(of: b, chunks: chunks)
        #expect(tiny.count == 1)
    }

    /// A reader's error reaches the caller, and nothing is kept.
    @Test func aFailingReadIsThrownAndNotKept() throws {
        let shared = ENSharedIdentifiers()
        let error = #expect(throws: ENError.self) {
            try shared.identifiers(of: Data([9])) {
                () throws(ENError) -> (chunks: [any ENEncodedKeyChunk], reach: ClosedRange<UInt32>?) in
                throw ENError(.dataInaccessible, "gone")
            }
        }
        #expect(error?.code == .dataInaccessible)
        #expect(shared.count == 0)
    }
}
