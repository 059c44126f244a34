import ENTestSupport
import Foundation
import Testing

/// `entool evaluate` on a hand-made encounter file and configuration, every figure computed by hand.
///
/// The configuration: thresholds 50/55, weights 100/50/0/0 %, notified when a day's scoreSum is at least 900 s.
/// The encounters (confirmed test, standard infectiousness from the command line; one minute is 60 s):
///
/// | id | truth | histogram | value (Apple) | contact | notified |
/// |---|---|---|---|---|---|
/// | near | 1 m, 20 min | 20 min at 40 dB | 1200 | yes | yes: TP |
/// | mid | 1.5 m, 20 min | 10 min at 52 dB (50 %) | 300 | yes | no: FN |
/// | far | 4 m, 20 min | 20 min at 80 dB (0 %) | 0 | no | no: TN |
/// | farclose | 3 m, 20 min | 20 min at 45 dB | 1200 | no | yes: FP |
/// | edge | 1 m, 870 s | 870 s at 40 dB | 900 (Apple rounds up), 870 (Android) | no | Apple FP, Android TN |
@Suite("entool evaluate")
struct EvaluateCommandTests {
    static let encounters = """
        {"format": "gaen-labelled-encounters", "version": 1, "dataset": {"name": "hand-made"},
         "encounters": [
          {"id": "near", "groundTruth": {"distanceMeters": 1, "durationSeconds": 1200},
           "observation": {"kind": "attenuationHistogram", "bins": [{"lo": 40, "hi": 41, "value": 20}]}},
          {"id": "mid", "groundTruth": {"distanceMeters": 1.5, "durationSeconds": 1200},
           "observation": {"kind": "attenuationHistogram", "bins": [{"lo": 52, "hi": 53, "value": 10}]}},
          {"id": "far", "groundTruth": {"distanceMeters": 4, "durationSeconds": 1200},
           "observation": {"kind": "attenuationHistogram", "bins": [{"lo": 80, "hi": 81, "value": 20}]}},
          {"id": "farclose", "groundTruth": {"distanceMeters": 3, "durationSeconds": 1200},
           "observation": {"kind": "attenuationHistogram", "bins": [{"lo": 45, "hi": 46, "value": 20}]}},
          {"id": "edge", "groundTruth": {"distanceMeters": 1, "durationSeconds": 870},
           "observation": {"kind": "attenuationHistogram", "unit": "seconds",
                           "bins": [{"lo": 40, "hi": 41, "value": 870}]}}]}
        """

    static let configuration = """
        {"name": "hand-made 50/55", "source": "written for this test",
         "framework": {"attenuationDurationThresholds": [50, 55, 255], "immediateDurationWeight": 100,
                       "nearDurationWeight": 50, "mediumDurationWeight": 0, "otherDurationWeight": 0},
         "app": {"rule": "daySummary", "field": "scoreSum", "notifyIfAtLeastSeconds": 900}}
        """

    /// A directory holding `encounters.json` and `config.json` (either replaceable), and where a report would go;
    /// removed when the last reference goes.
    final class Files {
        let scratch: TemporaryDirectory
        var directory: URL { scratch.url }
        var encounters: URL { directory.appendingPathComponent("encounters.json") }
        var configuration: URL { directory.appendingPathComponent("config.json") }
        var report: URL { directory.appendingPathComponent("report.html") }

        init(
            encounters: String = EvaluateCommandTests.encounters,
            configuration: String = EvaluateCommandTests.configuration
        )
            throws
        {
            scratch = try TemporaryDirectory()
            try Data(encounters.utf8).write(to: self.encounters)
            try Data(configuration.utf8).write(to: self.configuration)
        }

        deinit { scratch.cleanUp() }
    }

    static let metadata = ["--report-type", "1", "--infectiousness", "1", "--now", "2021-06-15T12:00:00Z"]

    private func evaluate(_ files: Files, _ arguments: [String] = [], metadata: [String] = metadata) throws
        -> EntoolResult
    {
        try runEntool(
            ["evaluate", "--encounters", files.encounters.path, "--config", files.configuration.path] + metadata
                + arguments)
    }

    @Test("--json: the documented shape and hand-computed counts, rates and values (Apple)")
    func json() throws {
        let result = try evaluate(try Files(), ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        #expect(Set(object.keys) == ["encounters", "contacts", "platform", "configurations", "sweeps", "optimum"])
        #expect(object["encounters"] as? Int == 5)
        #expect(object["contacts"] as? Int == 2)
        #expect(object["platform"] as? String == "apple")
        #expect(object["sweeps"] is NSNull)
        #expect(object["optimum"] is NSNull)
        let configurations = try #require(object["configurations"] as? [[String: Any]])
        #expect(configurations.count == 1)
        let c = configurations[0]
        #expect(
            Set(c.keys) == [
                "name", "notified", "notifiedRange", "undetermined", "truePositives", "falsePositives",
                "trueNegatives", "falseNegatives", "truePositiveRate", "falsePositiveRate", "precision", "f1",
                "chanceTruePositiveRate", "decisions",
            ])
        #expect(c["name"] as? String == "hand-made 50/55")
        #expect(c["notified"] as? Int == 3)
        #expect(c["notifiedRange"] as? [Int] == [3, 3])
        #expect(c["undetermined"] as? Int == 0)
        #expect(c["truePositives"] as? Int == 1)
        #expect(c["falsePositives"] as? Int == 2)
        #expect(c["trueNegatives"] as? Int == 1)
        #expect(c["falseNegatives"] as? Int == 1)
        #expect(c["truePositiveRate"] as? Double == 0.5)
        #expect(abs((c["falsePositiveRate"] as? Double ?? 0) - 2.0 / 3) < 1e-12)
        #expect(abs((c["precision"] as? Double ?? 0) - 1.0 / 3) < 1e-12)
        #expect(abs((c["f1"] as? Double ?? 0) - 0.4) < 1e-12)
        #expect(c["chanceTruePositiveRate"] as? Double == 0.6)
        let decisions = try #require(c["decisions"] as? [[String: Any]])
        #expect(decisions.map { $0["id"] as? String } == ["near", "mid", "far", "farclose", "edge"])
        #expect(decisions.map { $0["value"] as? Double } == [1200, 300, 0, 1200, 900])
        #expect(decisions.map { $0["contact"] as? Bool } == [true, true, false, false, false])
        #expect(decisions.map { $0["notified"] as? Bool } == [true, false, false, true, true])
        #expect(decisions.allSatisfy { $0["determinate"] as? Bool == true })
        #expect(Set(decisions[0].keys) == ["id", "contact", "notified", "determinate", "value"])
    }

    @Test("--platform android: the day's 870 s is not rounded up, so edge is not notified")
    func android() throws {
        let result = try evaluate(try Files(), ["--json", "--platform", "android"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["platform"] as? String == "android")
        let c = try #require((object["configurations"] as? [[String: Any]])?.first)
        let decisions = try #require(c["decisions"] as? [[String: Any]])
        #expect(decisions.map { $0["value"] as? Double } == [1200, 300, 0, 1200, 870])
        #expect(c["falsePositives"] as? Int == 1)
        #expect(c["trueNegatives"] as? Int == 2)
        #expect(c["precision"] as? Double == 0.5)
    }

    @Test("--sweep: ROC points from τ = ∞ down the values, AUC 7/12")
    func sweep() throws {
        let result = try evaluate(try Files(), ["--json", "--sweep"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        let sweep = try #require((object["sweeps"] as? [[String: Any]])?.first)
        #expect(sweep["name"] as? String == "hand-made 50/55")
        let points = try #require(sweep["points"] as? [[String: Any]])
        // Values 1200 (contact, non-contact), 900 (non-contact), 300 (contact), 0 (non-contact).
        let expected: [(Double, Double)] = [(0, 0), (1.0 / 3, 0.5), (2.0 / 3, 0.5), (2.0 / 3, 1), (1, 1)]
        #expect(points.count == expected.count)
        for (point, (fpr, tpr)) in zip(points, expected) {
            #expect(abs((point["falsePositiveRate"] as? Double ?? -1) - fpr) < 1e-12)
            #expect(abs((point["truePositiveRate"] as? Double ?? -1) - tpr) < 1e-12)
        }
        #expect(points.first?["threshold"] is NSNull)  // τ = ∞
        #expect(points.map { $0["threshold"] as? Double }.dropFirst() == [1200, 900, 300, 0])
        // Trapezoids: 1/3 × 0.25 + 1/3 × 0.5 + 0 + 1/3 × 1 = 7/12.
        #expect(abs((sweep["auc"] as? Double ?? 0) - 7.0 / 12) < 1e-12)
    }

    @Test("--optimize: the optimum loads as a configuration and reproduces its rates")
    func optimize() throws {
        let files = try Files()
        let result = try evaluate(files, ["--json", "--optimize", "0.34"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        let optimum = try #require(object["optimum"] as? [String: Any])
        let truePositiveRate = try #require(optimum["truePositiveRate"] as? Double)
        let falsePositiveRate = try #require(optimum["falsePositiveRate"] as? Double)
        #expect(falsePositiveRate <= 0.34)
        // Notifying near alone (FPR 0) is within the constraint, so the optimum finds at least TPR 0.5.
        #expect(truePositiveRate >= 0.5)
        let configuration = try #require(optimum["configuration"])
        let optimumFile = files.directory.appendingPathComponent("optimum.json")
        try JSONSerialization.data(withJSONObject: configuration).write(to: optimumFile)
        let again = try runEntool(
            ["evaluate", "--encounters", files.encounters.path, "--config", optimumFile.path, "--json"]
                + Self.metadata)
        #expect(again.status == 0, "\(again.stderr)")
        let c = try #require(((try again.json() as? [String: Any])?["configurations"] as? [[String: Any]])?.first)
        #expect(c["truePositiveRate"] as? Double == truePositiveRate)
        #expect(c["falsePositiveRate"] as? Double == falsePositiveRate)
    }

    @Test("--report: one self-contained HTML page with the ROC, the values and every encounter")
    func report() throws {
        let files = try Files()
        let result = try evaluate(files, ["--report", files.report.path])
        #expect(result.status == 0, "\(result.stderr)")
        let html = try String(contentsOf: files.report, encoding: .utf8)
        #expect(html.lowercased().hasPrefix("<!doctype html>"))
        #expect(html.contains("<svg"))
        #expect(html.contains("hand-made 50/55"))
        // Nothing is loaded: no scripts or styles from elsewhere, no remote images or links to fetch.
        #expect(
            HeadlessChromium.externalReferences(in: html).isEmpty, "\(HeadlessChromium.externalReferences(in: html))")
        // The page as a browser builds it: the charts, the configuration, every encounter.
        let dom = try HeadlessChromium().dumpDOM(of: files.report)
        #expect(HeadlessChromium.externalReferences(in: dom).isEmpty, "\(HeadlessChromium.externalReferences(in: dom))")
        #expect(dom.contains("<svg"))
        #expect(dom.contains("hand-made 50/55"))
        for id in ["near", "mid", "far", "farclose", "edge"] { #expect(dom.contains(">\(id)<"), "\(id)") }
    }

    /// Runs with `--report` and expects exit 2, a message naming every part of `names`, and no report.
    private func expectBadInput(
        _ files: Files, _ names: [String], metadata: [String] = metadata,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try evaluate(files, ["--report", files.report.path, "--json"], metadata: metadata)
        #expect(result.status == 2, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        for name in names {
            #expect(result.stderr.contains(name), "'\(name)' not in: \(result.stderr)", sourceLocation: sourceLocation)
        }
        #expect(!FileManager.default.fileExists(atPath: files.report.path), sourceLocation: sourceLocation)
    }

    private func encounters(replacing old: String, with new: String) -> String {
        Self.encounters.replacingOccurrences(of: old, with: new)
    }

    @Test("bad encounter files exit 2 naming the encounter and the field; no report is written")
    func badEncounters() throws {
        try expectBadInput(try Files(encounters: "{\"format\": "), ["encounters"])
        try expectBadInput(
            try Files(encounters: encounters(replacing: #""value": 10}"#, with: #""value": -1}"#)),
            ["encounter mid", "bins[0].value"])
        try expectBadInput(
            try Files(
                encounters: encounters(
                    replacing: #"[{"lo": 52, "hi": 53, "value": 10}]"#,
                    with: #"[{"lo": 50, "hi": 53, "value": 10}, {"lo": 52, "hi": 54, "value": 1}]"#)),
            ["encounter mid", "bins"])
        try expectBadInput(
            try Files(
                encounters: encounters(
                    replacing: #""kind": "attenuationHistogram", "bins": [{"lo": 80"#,
                    with: #""kind": "radar", "bins": [{"lo": 80"#)),
            ["encounter far", "kind"])
        try expectBadInput(
            try Files(
                encounters: encounters(
                    replacing: #""groundTruth": {"distanceMeters": 3, "durationSeconds": 1200},"#, with: "")),
            ["encounter farclose", "groundTruth"])
        // A rule needing key metadata that neither the encounter nor the command line gives.
        try expectBadInput(try Files(), ["encounter near", "reportType"], metadata: ["--infectiousness", "1"])
    }

    @Test("bad configurations exit 2 naming the configuration and the field; no report is written")
    func badConfigurations() throws {
        try expectBadInput(
            try Files(configuration: Self.configuration.replacingOccurrences(of: "daySummary", with: "astrology")),
            ["configuration hand-made 50/55", "app.rule"])
        try expectBadInput(
            try Files(configuration: Self.configuration.replacingOccurrences(of: ": 900}", with: ": -1}")),
            ["configuration hand-made 50/55", "app.notifyIfAtLeastSeconds"])
        try expectBadInput(
            try Files(
                configuration: Self.configuration.replacingOccurrences(
                    of: "\"nearDurationWeight\": 50", with: "\"nearDurationWeight\": 400")),
            ["configuration hand-made 50/55", "framework.nearDurationWeight"])
        try expectBadInput(try Files(configuration: "[]"), ["config.json"])
    }
}
