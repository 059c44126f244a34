import ENCore
import ENSimulator
import ExposureNotificationKit
import Foundation
import Testing

@Suite("ENScenario, radio model, clock and scheduler")
struct ScenarioTests {
    static let minimalJSON = """
        {"start": "2020-04-01T00:00:00Z", "days": 2, "devices": [{"name": "A"}, {"name": "B", "apiVersion": 1}],
         "encounters": [{"devices": ["A", "B"], "day": 0, "minute": 600, "minutes": 20, "distance": 1.5}],
         "diagnoses": [{"device": "A", "day": 1, "minute": 540, "sharing": "preAuthorized",
                        "symptomOnsetDaysBeforeResult": 1}]}
        """

    @Test("a minimal JSON scenario decodes with the documented defaults")
    func decodesDefaults() throws {
        let scenario = try ENScenario(json: Data(Self.minimalJSON.utf8))
        #expect(scenario.start == Date(timeIntervalSince1970: 1_585_699_200))
        #expect(scenario.seed == 1)
        #expect(scenario.detectionMinute == 22 * 60)
        #expect(scenario.notificationThresholdMinutes == 10)
        #expect(scenario.devices[1].apiVersion == 1 && scenario.devices[0].apiVersion == 2)
        #expect(scenario.diagnoses[0].sharing == .preAuthorized)
        #expect(scenario.scanTiming == ENScanTiming())
        #expect(scenario.configuration == ENScenario.defaultConfiguration)
    }

    @Test(
        "bad scenarios are refused with the part that is wrong",
        arguments: [
            ("{", ENError.Code.badFormat, nil as String?, nil as Int?),
            (#"{"days": 2, "devices": []}"#, .badFormat, nil, nil),
            (#"{"start": "2020-04-01T00:00:00Z", "days": 0, "devices": [{"name": "A"}]}"#, .badParameter, "days", nil),
            (
                #"{"start": "2020-04-01T00:00:00Z", "days": 1, "devices": [{"name": "A"}, {"name": "A"}]}"#,
                .badParameter, "devices", 1
            ),
            (
                #"{"start": "2020-04-01T00:00:00Z", "days": 1, "devices": [{"name": "A"}],"#
                    + #""encounters": [{"devices": ["A", "Z"], "day": 0, "minute": 1, "minutes": 1, "distance": 1}]}"#,
                .badParameter, "encounters", 0
            ),
            (
                #"{"start": "2020-04-01T00:00:00Z", "days": 1, "devices": [{"name": "A"}, {"name": "B"}],"#
                    + #""encounters": [{"devices": ["A", "B"], "day": 5, "minute": 1, "minutes": 1, "distance": 1}]}"#,
                .badParameter, "encounters", 0
            ),
            (
                #"{"start": "2020-04-01T00:00:00Z", "days": 1, "devices": [{"name": "A"}],"#
                    + #""diagnoses": [{"device": "B", "day": 0, "minute": 1, "sharing": "direct"}]}"#,
                .badParameter, "diagnoses", 0
            ),
            (
                #"{"start": "2020-04-01T00:00:00Z", "days": 1, "devices": [{"name": "A", "apiVersion": 3}]}"#,
                .badParameter, "devices", 0
            ),
        ])
    func refusesBadScenarios(json: String, code: ENError.Code, section: String?, index: Int?) {
        #expect {
            try ENScenario(json: Data(json.utf8))
        } throws: { error in
            guard let error = error as? ENError, error.code == code else { return false }
            return section == nil || (error.context.section == section && error.context.index == index)
        }
    }

    @Test("the path-loss model follows Google's lognormal fit; noise is seeded")
    func pathLoss() {
        let model = ENPathLossModel(noise: 0)
        #expect(abs(model.medianAttenuation(atDistance: 1) - exp(3.92)) < 1e-9)
        #expect(abs(model.medianAttenuation(atDistance: 2) - exp(3.92 + 0.21 * log(2.0))) < 1e-9)
        var random = ENSeededRandom(seed: 1)
        // 0 dBm announced and sent, no correction: RSSI = -attenuation.
        #expect(model.rssi(distance: 1, senderTxPower: 0, receiverCorrection: 0, using: &random) == -50)
        #expect(model.rssi(distance: 1, senderTxPower: 5, receiverCorrection: 2, using: &random) == -47)
        let noisy = ENPathLossModel(noise: 3)
        var first = ENSeededRandom(seed: 42)
        var second = ENSeededRandom(seed: 42)
        let a = (0..<100).map { _ in noisy.rssi(distance: 2, senderTxPower: 0, receiverCorrection: 0, using: &first) }
        let b = (0..<100).map { _ in noisy.rssi(distance: 2, senderTxPower: 0, receiverCorrection: 0, using: &second) }
        #expect(a == b)
        #expect(Set(a).count > 5)
        let mean = Double(a.map(Int.init).reduce(0, +)) / 100
        #expect(abs(mean + model.medianAttenuation(atDistance: 2)) < 1.5)
    }

    @Test("scans come every 300 ± 90 s; none outside the encounter")
    func scanTiming() {
        var random = ENSeededRandom(seed: 3)
        let start = Date(timeIntervalSince1970: 0)
        let scans = ENScanTiming().scans(from: start, length: 3600, using: &random)
        #expect(scans.allSatisfy { $0 >= start && $0 < start + 3600 })
        let gaps = zip(scans.dropFirst(), scans).map { $0.timeIntervalSince($1) }
        #expect(gaps.allSatisfy { (210...390).contains($0) })
        #expect((9...17).contains(scans.count))
    }

    @Test("the virtual scheduler runs due jobs in time order with the clock at their time; cancelled jobs stop")
    func scheduler() {
        let clock = ENVirtualClock(Date(timeIntervalSince1970: 0))
        let scheduler = ENVirtualScheduler(clock: clock)
        let log = Locked<[(String, TimeInterval)]>([])
        let hourly = scheduler.schedule(every: 3600) {
            log.withLock { $0.append(("h", clock.now.timeIntervalSince1970)) }
        }
        _ = scheduler.schedule(every: 5400) { log.withLock { $0.append(("90", clock.now.timeIntervalSince1970)) } }
        #expect(scheduler.advance(to: Date(timeIntervalSince1970: 3 * 3600)) == 5)
        #expect(log.withLock { $0.map(\.0) } == ["h", "90", "h", "h", "90"])
        #expect(log.withLock { $0.map(\.1) } == [3600, 5400, 7200, 10800, 10800])
        hourly.cancel()
        clock.advance(to: Date(timeIntervalSince1970: 0))
        #expect(clock.now.timeIntervalSince1970 == 10800)  // never back
        #expect(scheduler.advance(to: Date(timeIntervalSince1970: 6 * 3600)) == 2)
        #expect(scheduler.activeJobCount == 1)
    }
}
