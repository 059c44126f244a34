import ENCore
import ENEvaluation
import ENTestSupport
import Foundation
import Testing

@Suite("Labelled encounter files")
struct EncounterFileTests {
    typealias Data_ = EvaluationTestData

    func expectFailure(_ data: Data, _ code: ENError.Code, section: String, field: String?) {
        do {
            _ = try ENLabelledEncounterSet(jsonData: data)
            Issue.record("accepted \(String(decoding: data, as: UTF8.self))")
        } catch {
            #expect(error.code == code)
            #expect(error.context.section == section)
            if let field { #expect(error.context.field == field) }
        }
    }

    @Test("bad input names the encounter and the field")
    func badInput() {
        expectFailure(Data("[1]".utf8), .badFormat, section: "encounters file", field: nil)
        expectFailure(Data("not json".utf8), .badFormat, section: "encounters file", field: nil)
        expectFailure(
            Data("{\"format\": \"x\", \"version\": 1, \"dataset\": {\"name\": \"n\"}, \"encounters\": []}".utf8),
            .badFormat, section: "encounters file", field: "format")
        expectFailure(
            Data_.file(Data_.histogram(id: "neg", meters: 1, bins: [(50, 52, 2), (52, 54, -1)])), .badFormat,
            section: "encounter neg", field: "observation.bins[1].value")
        expectFailure(
            Data_.file(Data_.histogram(id: "overlap", meters: 1, bins: [(50, 54, 2), (52, 56, 1)])), .badFormat,
            section: "encounter overlap", field: "observation.bins[1]")
        expectFailure(
            Data_.file(Data_.histogram(id: "backwards", meters: 1, bins: [(54, 50, 2)])), .badFormat,
            section: "encounter backwards", field: "observation.bins[0].hi")
        expectFailure(
            Data_.file(Data_.histogram(id: "a", meters: 1, bins: []), Data_.histogram(id: "a", meters: 1, bins: [])),
            .badFormat, section: "encounter a", field: "id")
        expectFailure(
            Data_.file("{\"id\": \"nt\", \"observation\": {\"kind\": \"scanInstances\", \"windows\": []}}"),
            .badFormat, section: "encounter nt", field: "groundTruth")
        expectFailure(
            Data_.file(
                "{\"id\": \"empty\", \"groundTruth\": {}, \"observation\": {\"kind\": \"scanInstances\", \"windows\": []}}"
            ),
            .badFormat, section: "encounter empty", field: "groundTruth")
        expectFailure(
            Data_.file(
                "{\"id\": \"k\", \"groundTruth\": {\"distanceMeters\": 1}, \"observation\": {\"kind\": \"radar\"}}"),
            .badFormat, section: "encounter k", field: "observation.kind")
        expectFailure(
            Data_.file(
                """
                {"id": "d", "groundTruth": {"distanceMeters": 1}, "observation": {"kind": "scanInstances",
                 "windows": [{"date": "2021-02-30", "scanInstances": []}]}}
                """), .badFormat, section: "encounter d", field: "observation.windows[0].date")
        expectFailure(
            Data_.file(
                """
                {"id": "att", "groundTruth": {"distanceMeters": 1}, "observation": {"kind": "scanInstances",
                 "windows": [{"date": "2021-02-03", "scanInstances": [{"minimumAttenuation": 256,
                 "typicalAttenuation": 1, "secondsSinceLastScan": 60}]}]}}
                """), .badFormat, section: "encounter att",
            field: "observation.windows[0].scanInstances[0].minimumAttenuation")
        expectFailure(
            Data_.file(
                "{\"id\": \"r\", \"groundTruth\": {\"distanceMeters\": 1}, \"observation\": {\"kind\": \"rssiSeries\", \"samples\": []}}"
            ), .unsupported, section: "encounter r", field: "observation.kind")
    }

    @Test("without a scan model the example file's rssiSeries encounter is refused")
    func rssiSeries() throws {
        let data = try Fixtures.data("evaluation/example-encounters.json")
        do {
            _ = try ENLabelledEncounterSet(jsonData: data)
            Issue.record("accepted rssiSeries")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.context.section == "encounter rssi-1")
        }
    }

    @Test("a negative secondsSinceLastScan counts as 0, minutes and seconds units agree")
    func units() throws {
        let minutes = try ENLabelledEncounterSet(
            jsonData: Data_.file(Data_.histogram(id: "m", meters: 1, bins: [(50, 52, 2)])))
        guard case .attenuationHistogram(let histogram) = minutes.encounters[0].observation else {
            Issue.record("not a histogram")
            return
        }
        #expect(histogram.totalSeconds == 120)
        #expect(histogram.segments(.even).map(\.seconds) == [60, 60])
        #expect(histogram.segments(.lowest).map(\.attenuation) == [50])
        #expect(histogram.segments(.highest).map(\.attenuation) == [51])
        let negative = try ENLabelledEncounterSet(
            jsonData: Data_.file(
                """
                {"id": "n", "groundTruth": {"distanceMeters": 1}, "keyMetadata": {"reportType": 1, "infectiousness": 1},
                 "observation": {"kind": "scanInstances", "windows": [{"date": "2021-06-14", "scanInstances": [
                 {"minimumAttenuation": 40, "typicalAttenuation": 40, "secondsSinceLastScan": -300},
                 {"minimumAttenuation": 40, "typicalAttenuation": 40, "secondsSinceLastScan": 300}]}]}}
                """))
        var configuration = try EvaluationTestData.configuration("swisscovid-2020-06-25.v2")
        configuration.rule = .daySummary(field: .weightedDurationSum, notifyIfAtLeastSeconds: 300)
        let decision = try ENEvaluator.decide(
            negative.encounters[0], configuration: configuration, request: ENEvaluationRequest(now: Data_.now))
        #expect(decision.value == 300)
        #expect(decision.notified)
    }
}
