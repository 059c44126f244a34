import ENSimulator
import Foundation
import Testing

/// ``ENSimulationTruth`` on the sample story, every figure worked out by hand: A tests positive on day 2 (index
/// 2) at 09:00. Day 0: A and B 20 min at 1.5 m (a contact, seen from B), A and C 5 min at 3 m (an exposure of C, not
/// a contact). Day 4: A and C 30 min at 1 m, after A's result: no exposure. B is notified on day 2.
@Suite("ENSimulationTruth")
struct SimulationTruthTests {
    static func report(notified: [String: Int], days: Int = 5) -> ENSimulationReport {
        var report = ENSimulationReport(scenario: .sampleStory())
        report.daysCompleted = days
        for index in report.devices.indices {
            if let day = notified[report.devices[index].name] {
                report.devices[index].notified = true
                report.devices[index].notifiedOnDay = day
            }
        }
        return report
    }

    @Test("the sample story: B exposed from day 1, notified on day 3: a true positive; C exposed but not a contact")
    func sampleStory() {
        let truth = ENSimulationTruth(scenario: .sampleStory(), report: Self.report(notified: ["B": 2]))
        #expect(truth.phones == 3)
        #expect(truth.days.map(\.date) == ["2020-04-01", "2020-04-02", "2020-04-03", "2020-04-04", "2020-04-05"])
        #expect(truth.days.map(\.exposed) == [1, 1, 1, 1, 1])
        #expect(truth.days.map(\.notified) == [0, 0, 1, 1, 1])
        #expect(truth.days.map(\.truePositives) == [0, 0, 1, 1, 1])
        #expect(truth.days.map(\.falsePositives) == [0, 0, 0, 0, 0])
        #expect(truth.days.map(\.falseNegatives) == [1, 1, 0, 0, 0])
        #expect(truth.distributions.map(\.group) == ENSimulationTruth.Group.allCases)
        #expect(truth.distributions.map(\.exposures) == [1, 0, 0, 1])
        let notified = truth.distribution(.notifiedContacts)
        // 20 minutes: the bucket [20, 25); 1.5 m: a median of 55 dB, 3 dB of noise: somewhere in 45...65.
        #expect(notified.minutes == [0, 0, 0, 0, 1, 0, 0, 0, 0])
        #expect(notified.attenuation.reduce(0, +) == 1 && notified.unscanned == 0)
        #expect(notified.attenuation[0] == 0 && notified.attenuation[5...].allSatisfy { $0 == 0 })
        // C's 5 minutes: the bucket [5, 10); 3 m, a median of 61 dB.
        let quiet = truth.distribution(.quietNonContacts)
        #expect(quiet.minutes == [0, 1, 0, 0, 0, 0, 0, 0, 0])
        #expect(quiet.attenuation.reduce(0, +) + quiet.unscanned == 1)
    }

    @Test("a phone notified without a contact is a false positive; a contact never notified is missed")
    func falsePositiveAndMissed() {
        let truth = ENSimulationTruth(scenario: .sampleStory(), report: Self.report(notified: ["C": 3]))
        #expect(truth.days.map(\.notified) == [0, 0, 0, 1, 1])
        #expect(truth.days.map(\.falsePositives) == [0, 0, 0, 1, 1])
        #expect(truth.days.map(\.truePositives) == [0, 0, 0, 0, 0])
        #expect(truth.days.map(\.falseNegatives) == [1, 1, 1, 1, 1])
        #expect(truth.distributions.map(\.exposures) == [0, 1, 1, 0])
    }

    @Test("an encounter on the result's day counts before the result, not after; 14 days back, not 15")
    func keyDays() {
        let start = Date(timeIntervalSince1970: 1_585_699_200)
        let scenario = ENScenario(
            name: "window", seed: 1, start: start, days: 20,
            devices: ["P", "early", "edge", "before", "after"].map { ENScenario.Device(name: $0) },
            encounters: [
                .init(devices: ["P", "early"], day: 2, minute: 600, minutes: 20, distance: 1),
                .init(devices: ["edge", "P"], day: 3, minute: 600, minutes: 20, distance: 1),
                .init(devices: ["P", "before"], day: 16, minute: 539, minutes: 20, distance: 1),
                .init(devices: ["after", "P"], day: 16, minute: 541, minutes: 20, distance: 1),
            ],
            diagnoses: [.init(device: "P", day: 16, minute: 540)])
        var report = ENSimulationReport(scenario: scenario)
        report.daysCompleted = 20
        let truth = ENSimulationTruth(scenario: scenario, report: report)
        #expect(truth.days.last?.exposed == 2)
        #expect(truth.days[2].exposed == 0 && truth.days[3].exposed == 1)
        #expect(truth.distribution(.missedContacts).exposures == 2)
    }

    @Test("bucket edges: each bucket holds its lower edge")
    func buckets() {
        let edges: [Double] = [45, 50]
        #expect(ENSimulationTruth.bucket(44.9, edges: edges) == 0)
        #expect(ENSimulationTruth.bucket(45, edges: edges) == 1)
        #expect(ENSimulationTruth.bucket(49.99, edges: edges) == 1)
        #expect(ENSimulationTruth.bucket(50, edges: edges) == 2)
        #expect(ENSimulationTruth.bucket(200, edges: edges) == 2)
    }
}
