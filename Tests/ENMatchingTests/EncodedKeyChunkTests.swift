import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

@testable import ENMatching

/// Keys handed to the matcher still encoded (the key messages of an `export.bin`, decoded by the matching threads)
/// match as the same keys decoded first: the same matched keys, each with all its fields, the same hits.
@Suite("Matching keys left encoded in export.bin")
struct EncodedKeyChunkTests {
    /// A file with revised and revoked keys, the same key data twice, keys older than the retention, and key
    /// messages the decoder refuses; chunks of several sizes, on one and two threads.
    @Test(arguments: [1, 7, 4096])
    func encodedKeysMatchAsDecodedKeys(chunkSize: Int) throws {
        var generator = SeededRandomNumberGenerator.forTest()
        var keys: [ENTemporaryExposureKey] = []
        for _ in 0..<600 {
            let day = UInt32.random(in: 0..<20, using: &generator)
            keys.append(
                try TestData.key(
                    start: TestData.day + day * 144, period: UInt32.random(in: 1...144, using: &generator),
                    reportType: Bool.random(using: &generator) ? .confirmedTest : .revoked,
                    transmissionRiskLevel: UInt8.random(in: 0...8, using: &generator)))
        }
        // The same key data again later in the file, and a revision of some keys to another report type.
        keys += keys.prefix(40).map {
            var key = $0; key.transmissionRiskLevel = 1; return key
        }
        let revised = keys.suffix(30).map {
            var key = $0; key.diagnosisReportType = .recursive; return key
        }

        var sightings: [ENSighting] = []
        for key in keys.shuffled(using: &generator).prefix(120) {
            let offset = Int.random(in: 0..<Int(key.rollingPeriod), using: &generator)
            sightings.append(
                try TestData.sighting(of: key, offset: offset, drift: Int.random(in: -12...12, using: &generator)))
        }
        for _ in 0..<500 {
            sightings.append(
                TestData.sighting(
                    TestData.randomIdentifier(using: &generator),
                    interval: TestData.day + UInt32.random(in: 0..<(20 * 144), using: &generator)))
        }

        var exportBinary = try ENKeyExport(
            startTimestamp: 1, endTimestamp: 2, region: "310", keys: keys, revisedKeys: revised
        ).exportBinary()
        // Two key messages the decoder refuses: key data of 15 bytes, and a rolling period of 145.
        exportBinary.append(contentsOf: [0x3A, 17, 0x0A, 15] + [UInt8](repeating: 7, count: 15))
        exportBinary.append(
            contentsOf: [0x3A, 21, 0x0A, 16] + [UInt8](repeating: 9, count: 16) + [0x20, 0x91, 0x01])
        let oldest = ENIntervalNumber(TestData.day + 5 * 144)

        // The decoded reference: revised keys first, invalid keys skipped, old keys dropped.
        let scanner = try ENExportKeyScanner(exportBinary: exportBinary)
        var decoded: [[ENTemporaryExposureKey]] = []
        for section in [ENExportKeySection.revisedKeys, .keys] {
            var chunks = scanner.chunks(ofSize: chunkSize, in: section, invalidKeys: .skip)
            while let chunk = try chunks.next() {
                decoded.append(chunk.filter { $0.rollingStartNumber + $0.rollingPeriod > oldest })
            }
        }
        let encoded = try ENExportKeyScanner.encodedChunks(
            of: exportBinary, ofSize: chunkSize, retainingKeysAfter: oldest)
        #expect(encoded.map(\.count).reduce(0, +) == keys.count + revised.count + 2)

        let matcher = try ENMatcher(sightings: sightings)
        for threads in [1, 2] {
            let options = ENMatchingOptions(threadCount: threads)
            let expected = try matcher.match(keyChunks: decoded, options: options)
            let result = try matcher.match(encodedChunks: encoded.map { $0 as any ENEncodedKeyChunk }, options: options)
            #expect(!expected.matches.isEmpty)
            #expect(result.matches == expected.matches)
            #expect(result.statistics.keysIgnored >= 2)
        }
    }

    /// A refused key's record says "ignore" and it has no key; a key older than the retention is ignored but
    /// decodes.
    @Test func refusedAndOldKeysAreIgnored() throws {
        let key = try TestData.key(start: TestData.day)
        var exportBinary = try ENKeyExport(startTimestamp: 1, endTimestamp: 2, region: "310", keys: [key])
            .exportBinary()
        exportBinary.append(contentsOf: [0x3A, 17, 0x0A, 15] + [UInt8](repeating: 7, count: 15))
        for (oldest, ignored) in [(ENIntervalNumber(0), 1), (ENIntervalNumber(TestData.day + 144), 2)] {
            let chunks = try ENExportKeyScanner.encodedChunks(of: exportBinary, ofSize: 10, retainingKeysAfter: oldest)
            let chunk = try #require(chunks.first)
            #expect(chunks.count == 1 && chunk.count == 2)
            var records = [UInt8](repeating: 0xEE, count: 48)
            let counts = records.withUnsafeMutableBytes { chunk.writeRecords(0..<2, to: $0.baseAddress!) }
            #expect(counts.ignored == ignored)
            #expect(records[44..<48].allSatisfy { $0 == 0 }, "the refused key's period is 0")
            #expect(chunk.key(at: 0) == key)
            #expect(chunk.key(at: 1) == nil)
        }
    }

    /// A broken file is refused by the one walk, as the scanner refuses it.
    @Test func aBrokenFileIsRefusedAsTheScannerRefusesIt() throws {
        let key = try TestData.key(start: TestData.day)
        let exportBinary = try ENKeyExport(startTimestamp: 1, endTimestamp: 2, region: "310", keys: [key])
            .exportBinary()
        for broken in [exportBinary.dropLast(3), Data("EK Export v2    ".utf8) + exportBinary.dropFirst(16)] {
            let expected = #expect(throws: ENError.self) { try ENExportKeyScanner(exportBinary: Data(broken)) }
            let error = #expect(throws: ENError.self) {
                try ENExportKeyScanner.encodedChunks(of: Data(broken), ofSize: 10)
            }
            #expect(error?.code == expected?.code)
            #expect(error?.code == .badFormat)
        }
    }
}
