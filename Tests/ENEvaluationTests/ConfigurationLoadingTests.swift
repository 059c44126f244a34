import ENCore
import ENEvaluation
import Foundation
import Testing

@Suite("Evaluation configurations")
struct ConfigurationLoadingTests {
    @Test("every published configuration loads with its rule", arguments: EvaluationTestData.configurationNames)
    func loads(name: String) throws {
        let configuration = try EvaluationTestData.configuration(name)
        #expect(!configuration.name.isEmpty)
        let expected =
            switch name {
            case let n where n.hasSuffix("exposure-windows"): "cwaExposureWindows"
            case "cwa-2020-06-22.v1": "cwaV1"
            case "immuni-2020-06-22.v1": "maximumRiskScore"
            case "swisscovid-2020-06-25.v1": "weightedAttenuationDurations"
            default: "daySummary"
            }
        #expect(configuration.rule.name == expected)
    }

    @Test("the published values arrive (CWA 2.0 thresholds, Immuni, SwissCovid weights)")
    func values() throws {
        let immuni = try EvaluationTestData.configuration("immuni-2020-06-22.v1")
        #expect(immuni.rule == .maximumRiskScore(notifyIfAtLeast: 20))
        #expect(immuni.framework.durationLevelValues == [0, 0, 0, 0, 5, 5, 5, 5])
        let swiss = try EvaluationTestData.configuration("swisscovid-2020-06-25.v1")
        #expect(swiss.rule == .weightedAttenuationDurations(bucketWeights: [1, 0.5, 0], notifyIfAtLeastMinutes: 15))
        #expect(swiss.framework.attenuationDurationThresholds == [50, 55])
        let cwa = try EvaluationTestData.configuration("cwa-2021-04-15.exposure-windows")
        guard case .cwaExposureWindows(let parameters) = cwa.rule else {
            Issue.record("not a CWA rule")
            return
        }
        #expect(cwa.rule.threshold == 9)
        #expect(parameters.transmissionRiskValueMapping[8] == 1.6)
        #expect(parameters.minutesAtAttenuationWeights.map(\.weight) == [0.8, 1.0, 0.1])
    }

    static func config(app: String, framework: String = "{}") -> Data {
        Data("{\"name\": \"c\", \"source\": \"s\", \"framework\": \(framework), \"app\": \(app)}".utf8)
    }

    @Test("bad configurations fail naming the configuration and the field")
    func badInput() {
        let cases: [(Data, ENError.Code, String?)] = [
            (Data("{".utf8), .badFormat, nil),
            (Self.config(app: "{\"rule\": \"fancy\"}"), .badFormat, "app.rule"),
            (
                Self.config(app: "{\"rule\": \"maximumRiskScore\", \"notifyIfAtLeast\": 20, \"x\": 1}"), .badFormat,
                "app.x"
            ),
            (
                Self.config(app: "{\"rule\": \"maximumRiskScore\", \"notifyIfAtLeast\": 5000}"), .badFormat,
                "app.notifyIfAtLeast"
            ),
            (
                Self.config(app: "{\"rule\": \"daySummary\", \"field\": \"sum\", \"notifyIfAtLeastSeconds\": 1}"),
                .badFormat, "app.field"
            ),
            (
                Self.config(
                    app:
                        "{\"rule\": \"cwaV1\", \"bucketWeights\": [1], \"riskScoreNormalizationDivisor\": 0, \"notifyIfAtLeast\": 1}"
                ),
                .badFormat, "app.riskScoreNormalizationDivisor"
            ),
            (
                Self.config(
                    app: "{\"rule\": \"maximumRiskScore\", \"notifyIfAtLeast\": 1}",
                    framework: "{\"attenuationLevelValues\": [9, 9, 9, 9, 9, 9, 9, 9]}"),
                .badParameter, nil
            ),
        ]
        for (data, code, field) in cases {
            do {
                _ = try ENEvaluationConfiguration(jsonData: data, file: "bad.json")
                Issue.record("accepted \(String(decoding: data, as: UTF8.self))")
            } catch {
                #expect(error.code == code)
                #expect(error.context.section?.hasPrefix("configuration ") == true)
                if let field { #expect(error.context.field == field) }
                if code == .badParameter { #expect(error.context.field?.hasPrefix("framework") == true) }
            }
        }
    }
}
