import ENCore
import Foundation
import Testing

@Suite("ENTemporaryExposureKey validation")
struct ENTemporaryExposureKeyTests {
    private func key(
        bytes: Int = 16, period: UInt32 = 144, trl: UInt8 = 0, dsos: Int = ENDaysSinceOnsetOfSymptomsUnknown,
        start: ENIntervalNumber = 2_642_976
    ) -> ENTemporaryExposureKey {
        ENTemporaryExposureKey(
            keyData: Data(repeating: 7, count: bytes), rollingStartNumber: start, rollingPeriod: period,
            transmissionRiskLevel: trl, daysSinceOnsetOfSymptoms: dsos)
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
            return e?.code == .badParameter && e!.reason.contains("16 bytes") && e!.reason.contains("\(count)")
        }
    }

    @Test("a rolling period of 0 or above 144 is a bad parameter", arguments: [UInt32(0), 145, 1000])
    func badPeriod(period: UInt32) {
        #expect {
            try key(period: period).validate()
        } throws: { error in
            let e = error as? ENError
            return e?.code == .badParameter && e!.reason.contains("rolling period") && e!.reason.contains("\(period)")
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
        let k = ENTemporaryExposureKey(keyData: Data(hexString: "75c734c6dd1a782de7a965da5eb93125")!, rollingStartNumber: 1)
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
