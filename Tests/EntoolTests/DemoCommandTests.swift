import ENStore
import ENTestSupport
import Foundation
import Testing

@Suite("entool demo")
struct DemoCommandTests {
    /// The parts of `entool demo --json` the tests read.
    struct Output: Decodable {
        struct Report: Decodable, Equatable {
            struct Device: Decodable, Equatable {
                var name: String
                var notified: Bool
                var sightings: Int
                var keysShared: Int
                var filesProcessed: Int
                var score: Double
            }
            var devices: [Device]
            var daysCompleted: Int
            var filesPublished: Int
        }
        var report: Report
        var seconds: Double
    }

    @Test("--json tells the sample story as data: B notified, C not, A shared its keys")
    func json() throws {
        let result = try runEntool(["demo", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try JSONDecoder().decode(Output.self, from: result.stdout)
        #expect(output.report.devices.map(\.name) == ["A", "B", "C"])
        #expect(output.report.devices.map(\.notified) == [false, true, false])
        #expect(output.report.devices[0].keysShared > 0)
        #expect(output.report.devices[1].score > 0)
        #expect(output.report.daysCompleted == 5)
        #expect(output.report.filesPublished == 1)
        #expect(output.seconds > 0)
    }

    @Test("the narration names each step and the risk each device ends with")
    func narration() throws {
        let result = try runEntool(["demo", "--devices", "4", "--days", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output.contains("Day 2"))
        #expect(result.output.contains("Risk at the end:"))
        let story = try runEntool(["demo"])
        #expect(story.output.contains("B: notified on day 3"))
        #expect(story.output.contains("C: not notified"))
    }

    @Test(
        "bad options exit with status 2",
        arguments: [["--devices", "1"], ["--days", "0"], ["--scenario", "/nonexistent"]])
    func badOptions(arguments: [String]) throws {
        let result = try runEntool(["demo"] + arguments)
        #expect(result.status == 2)
    }

    /// `entool demo --store DIR` is killed with SIGKILL at random moments; every store left behind passes
    /// SQLite's integrity check, and the next run completes with the report of an uninterrupted run.
    @Test func killedDemoResumesAndNeverCorrupts() throws {
        let directory = try TemporaryDirectory(prefix: "DemoKill")
        defer { directory.cleanUp() }
        let store = directory.url.appendingPathComponent("store")
        var generator = SeededRandomNumberGenerator.forTest()
        var kills = 0
        for _ in 0..<8 {
            let process = try ChildProcess(try entoolURL().path, ["demo", "--store", store.path, "--json"])
            usleep(UInt32.random(in: 50_000...900_000, using: &generator))
            if process.isRunning {
                process.send(SIGKILL)
                kills += 1
            }
            process.waitForExit()
            try checkStores(under: store)
        }
        let resumed = try runEntool(["demo", "--store", store.path, "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let clean = try runEntool(["demo", "--json"])
        let resumedReport = try JSONDecoder().decode(Output.self, from: resumed.stdout).report
        let cleanReport = try JSONDecoder().decode(Output.self, from: clean.stdout).report
        #expect(resumedReport == cleanReport)
        try checkStores(under: store)
        print("entool demo kill test: \(kills) kills, \(generator)")
    }

    /// Every device's snapshot under `root` opens as a store and passes `PRAGMA integrity_check` (`day-N.partial` is
    /// a day in progress, discarded by the next run, so it is not checked).
    func checkStores(under root: URL) throws {
        guard let files = FileManager.default.enumerator(atPath: root.path) else { return }
        for case let path as String in files
        where path.contains("/devices/") && path.hasSuffix(".sqlite") && !path.contains(".partial/") {
            let store = try ENDeviceStore(
                inMemoryCopyOf: root.appendingPathComponent(path).path,
                configuration: ENStoreConfiguration(deletesExpiredRecordsOnOpen: false))
            try store.checkIntegrity()
            try store.close()
        }
    }

    /// A town holds no open file per phone, with or without `--store`: 400 phones run under a limit of 64 open
    /// files (a store file per phone needed several each), and both runs give the same report.
    @Test func townRunsUnderALowDescriptorLimit() throws {
        let directory = try TemporaryDirectory(prefix: "DemoDescriptors")
        defer { directory.cleanUp() }
        let entool = try entoolURL().path
        let town = ["demo", "--devices", "400", "--days", "2", "--seed", "5", "--json"]
        func limited(_ arguments: [String]) throws -> Output {
            let outcome = try ChildProcess.run(
                "/bin/sh", ["-c", "ulimit -n 64 && exec \"$0\" \"$@\"", entool] + arguments)
            #expect(outcome.status == 0, "\(String(decoding: outcome.standardError, as: UTF8.self))")
            return try JSONDecoder().decode(Output.self, from: outcome.standardOutput)
        }
        let memory = try limited(town)
        let stored = try limited(town + ["--store", directory.url.appendingPathComponent("store").path])
        #expect(memory.report == stored.report)
        #expect(memory.report.daysCompleted == 2 && memory.report.devices.count == 400)
        #expect(memory.report.devices.contains { $0.sightings > 0 })
        try checkStores(under: directory.url.appendingPathComponent("store"))
    }

    /// The parts of `--json`'s `truth` the report test reads.
    struct Truth: Decodable {
        struct Day: Decodable {
            var day: Int
            var date: String
            var exposed: Int
            var notified: Int
            var truePositives: Int
            var falsePositives: Int
            var falseNegatives: Int
        }
        struct Distribution: Decodable {
            var group: String
            var exposures: Int
            var attenuation: [Int]
            var unscanned: Int
            var minutes: [Int]
        }
        var days: [Day]
        var distributions: [Distribution]
    }

    /// `entool demo --report` on a town, opened in headless Chromium: the document shows every figure `--json`
    /// of the same run holds (each day's counts, each group's histogram buckets), and loads nothing from anywhere.
    @Test("--report: a self-contained page that Chromium renders with the figures of --json")
    func htmlReport() throws {
        let chromium = try HeadlessChromium()
        let directory = try TemporaryDirectory(prefix: "DemoReport")
        defer { directory.cleanUp() }
        let page = directory.url.appendingPathComponent("town.html")
        let result = try runEntool([
            "demo", "--devices", "80", "--days", "8", "--seed", "3", "--json", "--report", page.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let truth = try JSONDecoder().decode(
            Truth.self, from: JSONSerialization.data(withJSONObject: try #require(json["truth"])))
        let report = try JSONDecoder().decode(Output.self, from: result.stdout).report

        // The figures agree with themselves and with the report, and there is something to show.
        #expect(truth.days.count == 8)
        let last = try #require(truth.days.last)
        #expect(last.notified == report.devices.filter(\.notified).count)
        #expect(last.exposed > 0 && last.notified > 0, "a town too small to show anything")
        for day in truth.days {
            #expect(day.truePositives + day.falsePositives == day.notified, "day \(day.day)")
            #expect(day.truePositives + day.falseNegatives == day.exposed, "day \(day.day)")
        }
        #expect(
            truth.distributions.map(\.group) == [
                "notifiedContacts", "missedContacts", "notifiedNonContacts", "quietNonContacts",
            ])
        for distribution in truth.distributions {
            #expect(distribution.minutes.reduce(0, +) == distribution.exposures)
            #expect(distribution.attenuation.reduce(0, +) + distribution.unscanned == distribution.exposures)
        }

        let html = try String(contentsOf: page, encoding: .utf8)
        let dom = try chromium.dumpDOM(of: page)
        #expect(
            HeadlessChromium.externalReferences(in: html).isEmpty, "\(HeadlessChromium.externalReferences(in: html))")
        #expect(HeadlessChromium.externalReferences(in: dom).isEmpty, "\(HeadlessChromium.externalReferences(in: dom))")
        #expect(dom.contains("<svg"))
        func shows(_ id: String, _ value: Int, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(
                dom.contains("id=\"\(id)\">\(value)<"), "\(id) = \(value) not in the page",
                sourceLocation: sourceLocation)
        }
        for day in truth.days {
            #expect(dom.contains(">\(day.date)<"))
            shows("day-\(day.day)-exposed", day.exposed)
            shows("day-\(day.day)-notified", day.notified)
            shows("day-\(day.day)-truePositives", day.truePositives)
            shows("day-\(day.day)-falsePositives", day.falsePositives)
            shows("day-\(day.day)-falseNegatives", day.falseNegatives)
        }
        for distribution in truth.distributions {
            for (bucket, count) in distribution.attenuation.enumerated() {
                shows("attenuation-\(bucket)-\(distribution.group)", count)
            }
            for (bucket, count) in distribution.minutes.enumerated() {
                shows("minutes-\(bucket)-\(distribution.group)", count)
            }
            shows("attenuation-unscanned-\(distribution.group)", distribution.unscanned)
            shows("attenuation-total-\(distribution.group)", distribution.exposures)
        }
        if let shot = ProcessInfo.processInfo.environment["ENTOOL_REPORT_SCREENSHOT"] {
            try chromium.screenshot(of: page, to: URL(fileURLWithPath: shot))
        }
    }

    @Test("--report in a directory that does not exist exits 2 before the run, naming the option")
    func reportInMissingDirectory() throws {
        let result = try runEntool(["demo", "--report", "/nonexistent/dir/report.html"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--report"))
    }
}
