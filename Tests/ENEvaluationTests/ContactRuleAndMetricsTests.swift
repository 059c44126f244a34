import ENCore
import ENEvaluation
import Foundation
import Testing

@Suite("Contact rule and metrics")
struct ContactRuleAndMetricsTests {
    @Test("the edges of the ground-truth rule")
    func contactRule() {
        let rule = ENContactRule()
        #expect(rule.isContact(ENGroundTruth(distanceMeters: 2.0, durationSeconds: nil)))
        #expect(!ENContactRule(exclusive: true).isContact(ENGroundTruth(distanceMeters: 2.0, durationSeconds: nil)))
        #expect(!rule.isContact(ENGroundTruth(distanceMeters: 2.01, durationSeconds: 3600)))
        #expect(rule.isContact(ENGroundTruth(distanceMeters: 1, durationSeconds: 900)))
        #expect(!rule.isContact(ENGroundTruth(distanceMeters: 1, durationSeconds: 899)))
        #expect(ENContactRule(minutes: 0).isContact(ENGroundTruth(distanceMeters: 1, durationSeconds: 1)))
        // A series: 3.0 m for 600 s, then 1.8 m for 900 s (the last point holds no time).
        let series = ENGroundTruth(
            distanceSeries: [.init(time: 0, meters: 3), .init(time: 600, meters: 1.8), .init(time: 1500, meters: 1.8)],
            durationSeconds: 1500)
        #expect(rule.isContact(series))
        #expect(!ENContactRule(minutes: 15.01).isContact(series))
        #expect(!ENContactRule(withinMeters: 1.5, minutes: 0).isContact(series))
        #expect(ENContactRule(withinMeters: 3, minutes: 0).isContact(series))
    }

    static func decision(_ contact: Bool, _ notified: Bool, determinate: Bool = true) -> ENEncounterDecision {
        ENEncounterDecision(
            id: "x", contact: contact, notified: notified, determinate: determinate, value: 0,
            notifiedInSomePlacement: notified || !determinate, notifiedInEveryPlacement: notified && determinate)
    }

    @Test("confusion counts and rates by hand: 3 TP, 1 FN, 1 FP, 3 TN")
    func metrics() {
        let decisions =
            [Self.decision(true, true), Self.decision(true, true), Self.decision(true, true, determinate: false)]
            + [Self.decision(true, false), Self.decision(false, true)]
            + [Self.decision(false, false), Self.decision(false, false), Self.decision(false, false)]
        let metrics = ENEvaluationMetrics(decisions)
        #expect(metrics.truePositives == 3 && metrics.falseNegatives == 1)
        #expect(metrics.falsePositives == 1 && metrics.trueNegatives == 3)
        #expect(metrics.truePositiveRate == 0.75)
        #expect(metrics.falsePositiveRate == 0.25)
        #expect(metrics.precision == 0.75)
        #expect(metrics.f1 == 0.75)
        #expect(metrics.chanceTruePositiveRate == 0.5)
        #expect(metrics.undetermined == 1)
        #expect(metrics.notifiedRange == 3...4)
    }

    @Test("undefined rates are nil, never 0")
    func undefined() {
        let onlyContacts = ENEvaluationMetrics([Self.decision(true, false)])
        #expect(onlyContacts.falsePositiveRate == nil)
        #expect(onlyContacts.precision == nil)
        #expect(onlyContacts.f1 == nil)
        #expect(onlyContacts.truePositiveRate == 0)
        let none = ENEvaluationMetrics([])
        #expect(none.truePositiveRate == nil && none.chanceTruePositiveRate == nil)
    }

    @Test("a rule needing key metadata that nobody gives is bad input naming the encounter and field")
    func missingMetadata() throws {
        let set = try ENLabelledEncounterSet(
            jsonData: EvaluationTestData.file(
                EvaluationTestData.histogram(id: "bus-1", meters: 1, bins: [(50, 52, 20)])))
        let immuni = try EvaluationTestData.configuration("immuni-2020-06-22.v1")
        do {
            _ = try ENEvaluator.evaluate(
                set.encounters, configuration: immuni, request: ENEvaluationRequest(now: EvaluationTestData.now))
            Issue.record("evaluated without metadata")
        } catch {
            #expect(error.code == .badParameter)
            #expect(error.context.section == "encounter bus-1")
            #expect(error.context.field == "keyMetadata.daysSinceExposure")
        }
        do {
            _ = try ENEvaluator.evaluate(
                set.encounters, configuration: immuni,
                request: ENEvaluationRequest(defaults: ENKeyMetadata(daysSinceExposure: 0), now: EvaluationTestData.now)
            )
            Issue.record("evaluated without a transmission risk level")
        } catch {
            #expect(error.context.field == "keyMetadata.transmissionRiskLevel")
        }
        let request = ENEvaluationRequest(
            defaults: ENKeyMetadata(transmissionRiskLevel: 1, daysSinceExposure: 0), now: EvaluationTestData.now)
        let result = try ENEvaluator.evaluate(set.encounters, configuration: immuni, request: request)
        // 20 min at 50-51 dB: level 5 × duration level 5 (<= 20 min) = 25.
        #expect(result.decisions.map(\.value) == [25])
        #expect(result.metrics.truePositives == 1)
    }
}
