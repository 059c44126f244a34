import ENCore
import ENTestSupport
import Foundation
import Testing

@Suite("ENTemporaryExposureKey validation")
struct ENTemporaryExposureKeyTests {
    private func key(
        bytes: Int = 16, period: UInt32 = 144, trl: UInt8 = 0, dsos: Int = ENDaysSinceOnsetOfSymptomsUnknown,
        start: ENIntervalNumber = 2_642_976
    ) -> ENTemporaryExposureKey {
        TestKeys.key(
            data: Data(repeating: 7, count: bytes), start: start, period: period, transmissionRiskLevel: trl,
            daysSinceOnset: dsos)
    }

    @Test("a well-formed key validates, with Apple's defaults")
    func valid() throws {
        let k = ENTemporaryExposureKey(keyData: Data(count: 16), rollingStartNumber: 1)
        #expect(k.rollingPeriod == 144)
        #expect(k.daysSinceOnsetOfSymptoms == ENDaysSinceOnsetOfSymptomsUnknown)
        #expect(k.daysSinceOnsetOfSymptoms == Int.max)
        #expect(!k.hasKnownDaysSinceOnsetOfSymptoms)
        #expect(k.diagnosisReportType == .unknown)
        try k.validate()
        try key(period: 1).validate()
        try key(trl: 8).validate()
        try key(dsos: -14).validate()
        try key(dsos: 14).validate()
    }

    @Test("key data of the wrong length is a bad parameter naming the length", arguments: [0, 15, 17, 32])
    func wrongLength(count: Int) {
        #expect {
            try key(bytes: count).validate()
        } throws: { error in
            let e = error as? ENError
            return e?.code == .badParameter && e?.context.field == "keyData"
        }
    }

    @Test("a rolling period of 0 or above 144 is a bad parameter", arguments: [UInt32(0), 145, 1000])
    func badPeriod(period: UInt32) {
        #expect {
            try key(period: period).validate()
        } throws: { error in
            let e = error as? ENError
            return e?.code == .badParameter && e?.context.field == "rollingPeriod"
        }
    }

    @Test("transmission risk above 8 and days since onset beyond ±14 are refused")
    func badRanges() {
        #expect(throws: ENError(.badParameter, "transmission risk level must be 0...8, got 9")) {
            try key(trl: 9).validate()
        }
        for dsos in [-15, 15, 4000] {
            #expect {
                try key(dsos: dsos).validate()
            } throws: { ($0 as? ENError)?.code == .badParameter }
        }
    }

    @Test("a key running past the end of time is refused")
    func overflow() {
        #expect(throws: ENError.self) { try key(start: ENIntervalNumber(UInt32.max - 10)).validate() }
    }

    @Test("the description does not reveal the whole secret")
    func description() {
        let k = ENTemporaryExposureKey(
            keyData: Data(hexString: "75c734c6dd1a782de7a965da5eb93125")!, rollingStartNumber: 1)
        #expect(k.description.contains("75c734c6"))
        #expect(!k.description.contains("dd1a782d"))
    }

    @Test("JSON round trip keeps every field; unknown onset is omitted")
    func codable() throws {
        var k = key(dsos: -3)
        k.diagnosisReportType = .confirmedClinicalDiagnosis
        k.variantOfConcern = .type2
        let decoded = try JSONDecoder().decode(ENTemporaryExposureKey.self, from: JSONEncoder().encode(k))
        #expect(decoded == k)
        let unknown = key()
        let text = String(decoding: try JSONEncoder().encode(unknown), as: UTF8.self)
        #expect(!text.contains("daysSinceOnsetOfSymptoms"))
        #expect(try JSONDecoder().decode(ENTemporaryExposureKey.self, from: Data(text.utf8)) == unknown)
    }
}

@Suite("ENTemporaryExposureKey key-data storage")
struct ENTemporaryExposureKeyStorageTests {
    @Test("key data of any length reads back exactly; only 16 bytes have words", arguments: [0, 1, 15, 16, 17, 32])
    func roundTrip(length: Int) {
        let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        var key = ENTemporaryExposureKey(keyData: bytes, rollingStartNumber: 1)
        #expect(key.keyData == bytes)
        #expect((key.keyDataWords != nil) == (length == 16))
        key.keyData = Data(repeating: 0xAB, count: 16)
        #expect(key.keyData == Data(repeating: 0xAB, count: 16))
        #expect(key.keyDataWords?.low == 0xABAB_ABAB_ABAB_ABAB)
    }

    @Test("the words are the bytes in little-endian order, and slices of larger buffers work")
    func words() throws {
        let data = Data(hexString: "75c734c6dd1a782de7a965da5eb93125")!
        let key = ENTemporaryExposureKey(keyData: data, rollingStartNumber: 1)
        let words = try #require(key.keyDataWords)
        #expect(words.low == 0x2d78_1add_c634_c775)
        #expect(words.high == 0x2531_b95e_da65_a9e7)
        let padded = Data([0xFF, 0xFF]) + data + Data([0xEE])
        let slice = padded[padded.startIndex + 2..<padded.startIndex + 18]
        #expect(ENTemporaryExposureKey(keyData: slice, rollingStartNumber: 1) == key)
    }

    @Test("equality and hashing follow the key data, whatever Data it came from")
    func equality() {
        let a = ENTemporaryExposureKey(keyData: Data(repeating: 1, count: 16), rollingStartNumber: 5)
        let b = ENTemporaryExposureKey(keyData: Data([UInt8](repeating: 1, count: 16)), rollingStartNumber: 5)
        var c = a
        c.keyData = Data(repeating: 2, count: 16)
        #expect(a == b)
        #expect(Set([a, b, c]).count == 2)
        let short1 = ENTemporaryExposureKey(keyData: Data([1, 2, 3]), rollingStartNumber: 5)
        let short2 = ENTemporaryExposureKey(keyData: Data([1, 2, 3]), rollingStartNumber: 5)
        #expect(short1 == short2)
        #expect(short1 != a)
    }
}

@Suite("ENTemporaryExposureKey, Apple's shape")
struct ENTemporaryExposureKeyAppleShapeTests {
    @Test("ENTemporaryExposureKey() with settable properties, as app code builds one")
    func emptyInitialiser() throws {
        var key = ENTemporaryExposureKey()
        #expect(key.keyData.isEmpty)
        #expect(key.rollingPeriod == 144)
        #expect(throws: ENError(.badParameter)) { try key.validate() }
        key.keyData = Data(repeating: 7, count: 16)
        key.rollingStartNumber = 2_642_976
        key.rollingPeriod = 72
        key.transmissionRiskLevel = 3
        try key.validate()
        let period: ENIntervalNumber = key.rollingPeriod
        #expect(period == 72)
    }
}
