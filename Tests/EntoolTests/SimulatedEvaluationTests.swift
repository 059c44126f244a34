import ENTestSupport
import Foundation
import Testing

/// `entool demo --encounters FILE` then `entool evaluate`: the simulator's ground truth beside what the phones
/// recorded, evaluated with the package's own scoring.
@Suite("entool demo --encounters with entool evaluate")
struct SimulatedEvaluationTests {
    /// The parts of `entool demo --json` these tests read.
    struct DemoOutput: Decodable {
        struct Report: Decodable {
            struct Device: Decodable {
                var name: String
                var sightings: Int
            }
            var devices: [Device]
        }
        var report: Report
    }

    /// LFPH's narrower net attenuation weights (55/63/70 dB, 150/100/40/0 %), notified from 15 weighted minutes.
    static let configuration = """
        {"name": "55/63/70 at 150/100/40/0, 15 min", "source": "LFPH v1 narrower net weights; written for this test",
         "framework": {"attenuationDurationThresholds": [55, 63, 70], "immediateDurationWeight": 150,
                       "nearDurationWeight": 100, "mediumDurationWeight": 40, "otherDurationWeight": 0},
         "app": {"rule": "daySummary", "field": "scoreSum", "notifyIfAtLeastSeconds": 900}}
        """

    @Test("the sample story's file holds every sighting each phone recorded, and its contacts are notified")
    func sampleStory() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanUp() }
        let directory = scratch.url
        let encounters = directory.appendingPathComponent("story.encounters.json")
        let demo = try runEntool(["demo", "--json", "--encounters", encounters.path])
        #expect(demo.status == 0, "\(demo.stderr)")
        let report = try JSONDecoder().decode(DemoOutput.self, from: demo.stdout).report

        // The file: two labelled encounters per scripted encounter (A-B 20 min at 1.5 m, A-C 5 min at 3 m,
        // A-C 30 min at 1 m), each a receiver's scans, one RSSI per scan as the simulation records them.
        let file = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: encounters)) as? [String: Any])
        #expect(file["format"] as? String == "gaen-labelled-encounters")
        let items = try #require(file["encounters"] as? [[String: Any]])
        #expect(items.map { $0["id"] as? String } == ["e0-A", "e0-B", "e1-A", "e1-C", "e2-A", "e2-C"])
        let truths = items.compactMap { $0["groundTruth"] as? [String: Any] }
        #expect(truths.map { $0["distanceMeters"] as? Double } == [1.5, 1.5, 3, 3, 1, 1])
        #expect(truths.map { $0["durationSeconds"] as? Double } == [1200, 1200, 300, 300, 1800, 1800])
        var scansByReceiver: [String: Int] = [:]
        for item in items {
            let observation = try #require(item["observation"] as? [String: Any])
            #expect(observation["kind"] as? String == "sightings")
            let receiver = try #require(observation["receiver"] as? String)
            scansByReceiver[receiver, default: 0] += (observation["scans"] as? [Any])?.count ?? 0
        }
        for device in report.devices {
            #expect(scansByReceiver[device.name, default: 0] == device.sightings, "\(device.name)")
        }

        let config = directory.appendingPathComponent("config.json")
        try Data(Self.configuration.utf8).write(to: config)
        let result = try runEntool([
            "evaluate", "--encounters", encounters.path, "--config", config.path, "--report-type", "1",
            "--infectiousness", "1", "--now", "2020-04-06T00:00:00Z", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["contacts"] as? Int == 4)
        let c = try #require((object["configurations"] as? [[String: Any]])?.first)
        let decisions = try #require(c["decisions"] as? [[String: Any]])
        #expect(decisions.map { $0["contact"] as? Bool } == [true, true, false, false, true, true])
        // Every simulated contact is notified; the 5-minute encounter at 3 m (at most two scans, 420 s at
        // weight <= 1) cannot reach 900 s.
        #expect(c["truePositiveRate"] as? Double == 1)
        #expect(c["falsePositives"] as? Int == 0)
    }

    @Test("--encounters to an unwritable place is bad input")
    func unwritable() throws {
        let result = try runEntool(["demo", "--json", "--encounters", "/nonexistent-directory/x.json"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent-directory/x.json"))
    }
}
