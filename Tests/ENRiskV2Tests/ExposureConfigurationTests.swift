import ENCore
import ENTestSupport
import Foundation
import Testing

@Suite("ENExposureConfiguration")
struct ExposureConfigurationTests {
    @Test("Apple's defaults")
    func defaults() throws {
        let configuration = ENExposureConfiguration()
        #expect(configuration.attenuationLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(configuration.daysSinceLastExposureLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(configuration.durationLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(configuration.transmissionRiskLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(configuration.attenuationWeight == 1)
        #expect(configuration.transmissionRiskWeight == 1)
        #expect(configuration.attenuationDurationThresholds == [50, 70, 90])
        #expect(configuration.immediateDurationWeight == 100)
        #expect(configuration.otherDurationWeight == 100)
        #expect(configuration.infectiousnessHighWeight == 100)
        #expect(configuration.reportTypeRecursiveWeight == 100)
        #expect(configuration.reportTypeNoneMap == .confirmedTest)
        #expect(configuration.infectiousnessByDaysSinceOnsetOfSymptoms.isEmpty)
        #expect(configuration.minimumRiskScore == 0)
        #expect(configuration.minimumRiskScoreFullRange == 0)
        #expect(configuration.daysSinceLastExposureThreshold == 0)
        #expect(configuration.metadata == nil)
        try configuration.validate()
    }

    @Test("The current sample-server JSON decodes to its values")
    func currentFormat() throws {
        let configuration = try ENExposureConfiguration(
            jsonData: Fixtures.data("risk/exposure-configuration-current.json"))
        #expect(configuration.immediateDurationWeight == 100)
        #expect(configuration.nearDurationWeight == 100)
        #expect(configuration.mediumDurationWeight == 100)
        #expect(configuration.otherDurationWeight == 100)
        #expect(configuration.infectiousnessByDaysSinceOnsetOfSymptoms.count == 30)
        #expect(configuration.infectiousnessByDaysSinceOnsetOfSymptoms[ENDaysSinceOnsetOfSymptomsUnknown] == .standard)
        #expect(configuration.infectiousnessByDaysSinceOnsetOfSymptoms[-14] == .standard)
        #expect(configuration.infectiousnessByDaysSinceOnsetOfSymptoms[14] == .standard)
        #expect(configuration.infectiousnessByDaysSinceOnsetOfSymptoms[15] == nil)
        #expect(configuration.infectiousnessStandardWeight == 100)
        #expect(configuration.reportTypeConfirmedClinicalDiagnosisWeight == 100)
        #expect(configuration.reportTypeNoneMap == .confirmedTest)
        #expect(configuration.minimumRiskScore == 0)
        #expect(configuration.attenuationDurationThresholds == [50, 70])
        #expect(configuration.attenuationLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(configuration.transmissionRiskLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        // Absent properties keep Apple's defaults.
        #expect(configuration.attenuationWeight == 1)
        #expect(configuration.daysSinceLastExposureThreshold == 0)
    }

    @Test("The earlier sample-server JSON decodes its *Scores tables and weights")
    func earlierFormat() throws {
        let configuration = try ENExposureConfiguration(
            jsonData: Fixtures.data("risk/exposure-configuration-earlier.json"))
        #expect(configuration.minimumRiskScore == 0)
        #expect(configuration.attenuationWeight == 50)
        #expect(configuration.daysSinceLastExposureWeight == 50)
        #expect(configuration.durationWeight == 50)
        #expect(configuration.transmissionRiskWeight == 50)
        #expect(configuration.attenuationLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(configuration.durationLevelValues == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(configuration.attenuationDurationThresholds == [50, 70, 90])
        #expect(configuration.immediateDurationWeight == 100)
    }

    @Test("A legacy table and a current one: the current name wins")
    func currentNameWins() throws {
        let json = #"{"attenuationScores":[8,8,8,8,8,8,8,8],"attenuationLevelValues":[0,1,2,3,4,5,6,7]}"#
        let configuration = try ENExposureConfiguration(jsonData: Data(json.utf8))
        #expect(configuration.attenuationLevelValues == [0, 1, 2, 3, 4, 5, 6, 7])
    }

    @Test(
        "Encoding writes the current format and decodes back",
        arguments: [
            "exposure-configuration-current", "exposure-configuration-earlier",
        ])
    func roundTrip(name: String) throws {
        var configuration = try ENExposureConfiguration(jsonData: Fixtures.data("risk/\(name).json"))
        configuration.metadataValues = ["region": .string("US"), "thresholds": .array([.number(50), .number(70)])]
        let data = try JSONEncoder().encode(configuration)
        #expect(try ENExposureConfiguration(jsonData: data) == configuration)
        let object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["attenuationScores"] == nil)
        #expect(object["attenuationLevelValues"] != nil)
        if name.hasSuffix("current") {
            let map = try #require(object["infectiousnessForDaysSinceOnsetOfSymptoms"] as? [String: Any])
            #expect(map["unknown"] as? Int == 1)
            #expect(map["-14"] as? Int == 1)
        }
    }

    /// The current fixture with `change` applied, decoded.
    private func decodeModified(_ change: (inout [String: Any]) -> Void) throws -> ENExposureConfiguration {
        var object = try #require(
            JSONSerialization.jsonObject(with: Fixtures.data("risk/exposure-configuration-current.json"))
                as? [String: Any])
        change(&object)
        return try ENExposureConfiguration(jsonData: JSONSerialization.data(withJSONObject: object))
    }

    private func expectBadParameter(
        naming field: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ change: (inout [String: Any]) -> Void
    ) {
        do {
            _ = try decodeModified(change)
            Issue.record("decoding succeeded, expected a badParameter naming \(field)", sourceLocation: sourceLocation)
        } catch let error as ENError {
            #expect(error.code == .badParameter, sourceLocation: sourceLocation)
            #expect(error.context.field == field, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("Invalid values fail with a badParameter naming the field")
    func invalid() {
        expectBadParameter(naming: "attenuationLevelValues") { $0["attenuationLevelValues"] = Array(1...9) }
        expectBadParameter(naming: "durationLevelValues") { $0["durationLevelValues"] = [1, 2, 3, 4, 5, 6, 7, 9] }
        expectBadParameter(naming: "transmissionRiskLevelValues") { $0["transmissionRiskLevelValues"] = [1, 2] }
        expectBadParameter(naming: "attenuationScores") {
            $0["attenuationLevelValues"] = nil; $0["attenuationScores"] = [-1]
        }
        expectBadParameter(naming: "immediateDurationWeight") { $0["immediateDurationWeight"] = 300 }
        expectBadParameter(naming: "reportTypeSelfReportedWeight") { $0["reportTypeSelfReportedWeight"] = -1 }
        expectBadParameter(naming: "attenuationWeight") { $0["attenuationWeight"] = 300 }
        expectBadParameter(naming: "attenuationDurationThresholds") {
            $0["attenuationDurationThresholds"] = [1, 2, 3, 4]
        }
        expectBadParameter(naming: "attenuationDurationThresholds") { $0["attenuationDurationThresholds"] = [50] }
        expectBadParameter(naming: "attenuationDurationThresholds") { $0["attenuationDurationThresholds"] = [50, 256] }
        expectBadParameter(naming: "infectiousnessForDaysSinceOnsetOfSymptoms") {
            var map = $0["infectiousnessForDaysSinceOnsetOfSymptoms"] as! [String: Any]
            map["abc"] = 1
            $0["infectiousnessForDaysSinceOnsetOfSymptoms"] = map
        }
        expectBadParameter(naming: "infectiousnessForDaysSinceOnsetOfSymptoms") {
            $0["infectiousnessForDaysSinceOnsetOfSymptoms"] = ["15": 1]
        }
        expectBadParameter(naming: "infectiousnessForDaysSinceOnsetOfSymptoms") {
            $0["infectiousnessForDaysSinceOnsetOfSymptoms"] = ["0": 3]
        }
        expectBadParameter(naming: "reportTypeNoneMap") { $0["reportTypeNoneMap"] = 5 }
        expectBadParameter(naming: "minimumRiskScore") { $0["minimumRiskScore"] = 256 }
        expectBadParameter(naming: "minimumRiskScoreFullRange") { $0["minimumRiskScoreFullRange"] = 4097 }
        expectBadParameter(naming: "daysSinceLastExposureThreshold") { $0["daysSinceLastExposureThreshold"] = -1 }
        expectBadParameter(naming: "nearDurationWeight") { $0["nearDurationWeight"] = "high" }
        expectBadParameter(naming: "metadata") { $0["metadata"] = 3 }
    }

    @Test("Not a JSON object is badFormat")
    func notAnObject() {
        for text in ["[1, 2]", "{", "", "42"] {
            #expect(throws: ENError.self) { try ENExposureConfiguration(jsonData: Data(text.utf8)) }
            do {
                _ = try ENExposureConfiguration(jsonData: Data(text.utf8))
            } catch {
                #expect(error.code == .badFormat, "\(text): \(error)")
            }
        }
    }

    @Test("validate() checks values set in code")
    func validateInCode() {
        var configuration = ENExposureConfiguration()
        configuration.infectiousnessHighWeight = 250.5
        #expect(throws: ENError.badParameter("infectiousnessHighWeight must be 0...250, got 250.5")) {
            try configuration.validate()
        }
        configuration = ENExposureConfiguration()
        configuration.minimumRiskScoreFullRange = .nan
        #expect(throws: ENError.self) { try configuration.validate() }
        configuration = ENExposureConfiguration()
        configuration.reportTypeNoneMap = .revoked
        #expect(throws: ENError.self) { try configuration.validate() }
        configuration = ENExposureConfiguration()
        configuration.infectiousnessByDaysSinceOnsetOfSymptoms[-15] = .high
        #expect(throws: ENError.self) { try configuration.validate() }
        configuration = ENExposureConfiguration()
        configuration.attenuationDurationThresholds = [90, 70, 50]  // iOS accepts thresholds that do not increase
        #expect(throws: Never.self) { try configuration.validate() }
    }
}
