import ENCore
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Testing

/// An app's test mock, as apps wrote them: a subclass of ENManager overriding what it needs.
final class MockENManager: ENManager, @unchecked Sendable {
    override var exposureNotificationStatus: ENStatus { .bluetoothOff }
    override func getDiagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey] {
        [ENTemporaryExposureKey(keyData: Data(repeating: 7, count: 16), rollingStartNumber: 2_642_976)]
    }
}

@Suite("Apple's shapes that real apps' code uses")
struct AppleShapesTests {
    @Test("summary and exposure metadata hold iOS 13.5's keys")
    func metadata() throws {
        let summary = ENExposureDetectionSummary(
            attenuationDurations: [300, 600, 0], maximumRiskScoreFullRange: 512, riskScoreSumFullRange: 1024)
        let durations = try #require(summary.metadata?["attenuationDurations"] as? [NSNumber])
        #expect(durations.map(\.doubleValue) == [300, 600, 0])
        #expect((summary.metadata?["maximumRiskScoreFullRange"] as? NSNumber)?.doubleValue == 512)
        #expect((summary.metadata?["riskScoreSumFullRange"] as? NSNumber)?.doubleValue == 1024)

        let info = ENExposureInfo(
            attenuationDurations: [60, 120, 0], attenuationValue: 10, date: Date(timeIntervalSince1970: 0),
            duration: 180, totalRiskScore: 40, totalRiskScoreFullRange: 400, transmissionRiskLevel: 3)
        #expect((info.metadata?["attenuationDurations"] as? [NSNumber])?.map(\.doubleValue) == [60, 120, 0])
        #expect((info.metadata?["totalRiskScoreFullRange"] as? NSNumber)?.doubleValue == 400)
    }

    @Test("Apple's async names: diagnosisKeys(), testDiagnosisKeys(), userTraveled()")
    func asyncNames() async throws {
        let key = ENTemporaryExposureKey(keyData: Data(repeating: 1, count: 16), rollingStartNumber: 2_642_976)
        let double = ScriptedExposureManager(
            script: .init(diagnosisKeys: [key], testDiagnosisKeys: [key], testEntitlement: true, userTraveled: true))
        try await double.activate()
        try await double.setExposureNotificationEnabled(true)
        #expect(try await double.diagnosisKeys() == [key])
        #expect(try await double.testDiagnosisKeys() == [key])
        #expect(try await double.userTraveled())
        #expect(double.calls.suffix(3) == [.getDiagnosisKeys, .getTestDiagnosisKeys, .getUserTraveled])
    }

    @Test("ENErrorDomain, and ENError.userInfo carries what it was given")
    func errors() {
        #expect(ENErrorDomain == "ENErrorDomain")
        let error = ENError(.rateLimited, userInfo: ["retryAfter": 3600, NSLocalizedDescriptionKey: "too many"])
        #expect(error.userInfo["retryAfter"] as? Int == 3600)
        #expect(error.reason == "too many")
        #expect((error as NSError).domain == ENErrorDomain)
        #expect((error as NSError).userInfo["retryAfter"] as? Int == 3600)
    }

    @Test("infectiousnessForDaysSinceOnsetOfSymptoms is optional and nil by default, as Apple's")
    func optionalInfectiousness() {
        var configuration = ENExposureConfiguration()
        #expect(configuration.infectiousnessForDaysSinceOnsetOfSymptoms == nil)
        configuration.infectiousnessForDaysSinceOnsetOfSymptoms = [0: 2]
        #expect(configuration.infectiousness(forDaysSinceOnsetOfSymptoms: 0) == .high)
    }

    @Test("ENManager is open: an app's mock subclass overrides its members")
    func subclassing() async throws {
        let mock = MockENManager(environment: ENEnvironment())
        let manager: ENManager = mock
        #expect(manager.exposureNotificationStatus == .bluetoothOff)
        #expect(try await manager.getDiagnosisKeys().count == 1)
    }

    @Test("init() on the result types and description on the EN types, as Apple's classes have them")
    func initAndDescription() {
        #expect(ENExposureInfo().duration == 0)
        #expect(ENExposureWindow().scanInstances.isEmpty)
        #expect(ENScanInstance().secondsSinceLastScan == 0)
        #expect(ENExposureDaySummary().daySummary == ENExposureSummaryItem())
        #expect(ENExposureDetectionSummary().matchedKeyCount == 0)
        #expect(ENStatus.active.description == "active")
        #expect(ENAuthorizationStatus.notAuthorized.description == "notAuthorized")
        #expect(ENDiagnosisReportType.selfReported.description == "selfReported")
        #expect(ENInfectiousness.high.description == "high")
        #expect(ENCalibrationConfidence.medium.description == "medium")
        #expect(
            ([.periodicRun, ENActivityFlags(rawValue: 1 << 8)] as ENActivityFlags).description == "[periodicRun, 0x100]"
        )
        #expect(
            ENScanInstance(minimumAttenuation: 1, typicalAttenuation: 2, secondsSinceLastScan: 3).description
                == "ENScanInstance(minimumAttenuation: 1, typicalAttenuation: 2, secondsSinceLastScan: 3)")
        #expect(
            ENExposureDetectionSummary().description.hasPrefix("ENExposureDetectionSummary(attenuationDurations: []"))
        #expect(!ENExposureDetectionSummary().description.contains("origin"))
        #expect(ENExposureDaySummary().description.contains("confirmedTestSummary: nil"))
        #expect(ENManager(environment: ENEnvironment()).description.contains("exposureNotificationStatus: unknown"))
        #expect(ENExposureConfiguration().description.hasPrefix("ENExposureConfiguration("))
        #expect(ENExposureWindow().description.hasPrefix("ENExposureWindow("))
        #expect(ENExposureInfo().description.hasPrefix("ENExposureInfo("))
    }

    @Test("the limits are Int, as Apple's SDK imports them")
    func intConstants() {
        let limits: [Int] = [
            ENAttenuationMin, ENAttenuationMax, ENRiskLevelMin, ENRiskLevelMax, ENRiskLevelValueMin,
            ENRiskLevelValueMax, ENRiskScoreMin, ENRiskScoreMax, ENRiskWeightMin, ENRiskWeightMax, ENRiskWeightDefault,
            ENRiskWeightDefaultV2, ENRiskWeightMaxV2,
        ]
        #expect(limits == [0, 255, 0, 7, 0, 8, 0, 255, 0, 100, 1, 100, 250])
        #expect(Int(ENExposureDetectionSummary().maximumRiskScore) <= ENRiskScoreMax)
    }
}
