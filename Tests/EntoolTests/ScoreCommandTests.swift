import ENTestSupport
import Foundation
import Testing

@Suite("entool score")
final class ScoreCommandTests {
    /// The test's files, removed when the test ends.
    private let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory() }
    deinit { scratch.cleanUp() }

    private func score(_ version: String, config: URL, input: URL, now: String = "2020-07-02T00:00:00Z") throws
        -> EntoolResult
    {
        try runEntool(["score", version, "--config", config.path, "--input", input.path, "--now", now, "--json"])
    }

    /// Writes `text` to a temporary file.
    private func temporaryFile(_ text: String) throws -> URL {
        let url = scratch.url.appendingPathComponent("input-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("v2: Apple's worked example scores 45 minutes; absent per-type items are null")
    func v2AppleExample() throws {
        let result = try score(
            "v2", config: Fixtures.url("risk/score-config-apple-example.json"),
            input: Fixtures.url("risk/score-v2-apple-example.json"))
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        let days = try #require(object["daySummaries"] as? [[String: Any]])
        #expect(days.count == 1)
        let day = days[0]
        #expect(day["date"] as? String == "2020-07-01")
        let summary = try #require(day["daySummary"] as? [String: Any])
        #expect(summary["maximumScore"] as? Double == 2700)
        #expect(summary["scoreSum"] as? Double == 2700)
        #expect(summary["weightedDurationSum"] as? Double == 1380)
        #expect((day["confirmedTestSummary"] as? [String: Any])?["scoreSum"] as? Double == 2700)
        for key in ["confirmedClinicalDiagnosisSummary", "selfReportedSummary", "recursiveSummary"] {
            #expect(day[key] is NSNull, "\(key)")
        }
    }

    @Test("v2: the day threshold of the configuration applies relative to --now")
    func v2Threshold() throws {
        let config = try temporaryFile(
            #"{"daysSinceLastExposureThreshold": 2, "infectiousnessForDaysSinceOnsetOfSymptoms": {"0": 2}}"#)
        let input = try Fixtures.url("risk/score-v2-apple-example.json")
        let recent = try score("v2", config: config, input: input, now: "2020-07-03T23:59:59Z")
        #expect((try recent.json() as? [String: Any])?["daySummaries"] as? [Any] != nil)
        #expect(((try recent.json() as? [String: Any])?["daySummaries"] as? [Any])?.count == 1)
        let late = try score("v2", config: config, input: input, now: "2020-07-04T00:00:00Z")
        #expect(((try late.json() as? [String: Any])?["daySummaries"] as? [Any])?.count == 0)
    }

    @Test("v1: the sample server's configuration scores pre-built exposures")
    func v1() throws {
        let result = try score(
            "v1", config: Fixtures.url("risk/exposure-configuration-current.json"),
            input: Fixtures.url("risk/score-v1-exposures.json"))
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["matchedKeyCount"] as? Int == 2)
        #expect(summary["daysSinceLastExposure"] as? Int == 4)
        #expect(summary["maximumRiskScore"] as? Int == 255)
        #expect(summary["maximumRiskScoreFullRange"] as? Double == 384)
        // Second exposure: 12 days -> 2; 91 s -> 2; attenuation (30 x 4 + 61 x 1) / 91 = 1.99 -> 2; level 0 -> 1.
        #expect(summary["riskScoreSumFullRange"] as? Double == 392)  // 384 + 2 x 2 x 2 x 1
        // Thresholds [50, 70]: 30 s <= 50, 840 s in (50, 70], 61 s above 70.
        #expect(summary["attenuationDurations"] as? [Double] == [60, 840, 120])
        let infos = try #require(object["exposureInfo"] as? [[String: Any]])
        #expect(infos.count == 2)
        #expect(infos[0]["date"] as? String == "2020-06-28")
        #expect(infos[0]["duration"] as? Double == 840)
        #expect(infos[0]["attenuationValue"] as? Int == 2)
        #expect(infos[0]["totalRiskScore"] as? Int == 255)
        #expect(infos[0]["totalRiskScoreFullRange"] as? Double == 384)
        #expect(infos[0]["transmissionRiskLevel"] as? Int == 7)
        #expect(infos[1]["duration"] as? Double == 120)
        #expect(infos[1]["attenuationDurations"] as? [Double] == [60, 0, 120])
    }

    @Test("Bad input exits 2 with a reason naming what was wrong")
    func badInput() throws {
        let config = try Fixtures.url("risk/exposure-configuration-current.json")
        let v2 = try Fixtures.url("risk/score-v2-apple-example.json")
        let cases: [(String, URL, URL, String, String)] = [
            ("v2", config, v2, "yesterday", "--now"),
            (
                "v2", try temporaryFile(#"{"attenuationLevelValues": [1,2,3,4,5,6,7,8,9]}"#), v2, "2020-07-02",
                "attenuationLevelValues"
            ),
            (
                "v2", try temporaryFile(#"{"infectiousnessForDaysSinceOnsetOfSymptoms": {"x": 1}}"#), v2, "2020-07-02",
                "\"x\""
            ),
            (
                "v2", config,
                try temporaryFile(
                    #"{"windows": [{"date": "2020-02-30", "diagnosisReportType": 1, "infectiousness": 1, "calibrationConfidence": 3, "scanInstances": []}]}"#
                ), "2020-07-02", "windows[0].date"
            ),
            (
                "v2", config,
                try temporaryFile(
                    #"{"windows": [{"date": "2020-07-01", "diagnosisReportType": 1, "infectiousness": 1, "calibrationConfidence": 3, "scanInstances": [{"minimumAttenuation": 1, "typicalAttenuation": 300, "secondsSinceLastScan": 60}]}]}"#
                ), "2020-07-02", "windows[0].scanInstances[0].typicalAttenuation"
            ),
            (
                "v2", config,
                try temporaryFile(
                    #"{"windows": [{"date": "2020-07-01", "diagnosisReportType": 6, "infectiousness": 1, "calibrationConfidence": 3, "scanInstances": []}]}"#
                ), "2020-07-02", "diagnosisReportType"
            ),
            ("v2", config, try temporaryFile(#"{"windows": [{"date": "2020-07-01"}]}"#), "2020-07-02", "missing"),
            ("v2", config, try temporaryFile("{"), "2020-07-02", "JSON"),
            (
                "v1", config,
                try temporaryFile(
                    #"{"exposures": [{"date": "2020-07-01", "transmissionRiskLevel": 9, "attenuationSegments": []}]}"#),
                "2020-07-02", "transmissionRiskLevel"
            ),
            (
                "v1", config,
                try temporaryFile(
                    #"{"exposures": [{"date": "2020-07-01", "transmissionRiskLevel": 1, "attenuationSegments": [{"attenuation": 10, "seconds": -1}]}]}"#
                ), "2020-07-02", "seconds"
            ),
            ("v1", config, URL(fileURLWithPath: "/nonexistent/input.json"), "2020-07-02", "/nonexistent/input.json"),
        ]
        for (version, configURL, inputURL, now, expected) in cases {
            let result = try score(version, config: configURL, input: inputURL, now: now)
            #expect(result.status == 2, "\(expected): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(expected): \(result.stderr)")
        }
    }
}
