import ArgumentParser
import ENCore
import ENSimulator
import Foundation

/// `entool demo`: the whole system at work: devices, radio, key server and detection, narrated.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Simulate phones, a key server and exposure detection end to end, and narrate what happens.",
        discussion: """
            Without options: three phones over five days. A and B spend 20 minutes together, C only passes A; \
            A tests positive and shares its keys; every phone detects each evening; B is notified, C is not.
            With --devices or --days: a random town (three encounters a day per phone, one phone in fifty \
            positive). With --scenario: a scenario JSON file (see ENSimulator's documentation).
            The phones' stores live in memory; with --store DIR each finished day is also written there (a \
            snapshot of every phone's store and the key server's database), and a killed run resumes from its last \
            finished day. With --report FILE.html: a page of the run, per day the phones exposed in truth (the \
            simulator knows every encounter), notified, true and false positives, and the attenuation and duration \
            of notified and missed contacts (the same figures as --json's "truth").
            """
    )

    @Option(help: "Keep each finished day's state in this directory (resumable); default: in memory only.")
    var store: String?

    @Option(help: "Simulate a random town of this many phones (2...100000) instead of the sample story.")
    var devices: Int?

    @Option(help: "How many days to simulate (1...366); with --devices, default 14.")
    var days: Int?

    @Option(help: "Run this scenario JSON file.")
    var scenario: String?

    @Option(help: "The random seed of the radio (scan phases, signal noise) and of a random town.")
    var seed: UInt64?

    @Option(
        help: "Also write the scenario's encounters (what each phone recorded, and the scripted truth) to this file.")
    var encounters: String?

    @Option(
        help: "Also write a self-contained HTML page of the run (exposed in truth, notified, per day) to this file.")
    var report: String?

    @OptionGroup var output: OutputOptions

    /// The JSON shape of `entool demo --json`.
    struct Result: Encodable {
        var report: ENSimulationReport
        /// What really happened: exposures per day, true and false positives, the exposures' distributions.
        var truth: ENSimulationTruth
        var seconds: Double
        var store: String?
    }

    func run() async throws {
        let scenario = try makeScenario()
        if let path = report {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw EntoolFailure.badInput("--report: the directory '\(folder)' does not exist") }
        }
        let directory = store.map { URL(fileURLWithPath: $0) }
        let simulation = try ENSimulation(scenario: scenario, storage: directory.map { .directory($0) } ?? .inMemory)
        let narrate = !output.json
        let narrator = DemoNarrator(
            verbose: narrate && scenario.devices.count <= 10,
            progress: scenario.devices.count > 10 && isatty(2) == 1)
        if narrate {
            print(
                "Simulating \(scenario.name): \(scenario.devices.count) phones, \(scenario.days) days, seed \(scenario.seed)."
            )
            print("Stores: \(directory?.path ?? "in memory")")
        }
        let started = ContinuousClock.now
        let report = try await simulation.run { event in narrator.handle(event) }
        let elapsed = ContinuousClock.now - started
        narrator.finish()
        if let encounters {
            do {
                try scenario.labelledEncountersJSON().write(to: URL(fileURLWithPath: encounters), options: .atomic)
            } catch let error as ENError {
                throw error
            } catch {
                throw EntoolFailure.badInput("cannot write '\(encounters)': \(error.localizedDescription)")
            }
        }
        let truth = ENSimulationTruth(scenario: scenario, report: report)
        if let path = self.report {
            do {
                try Data(DemoReport.html(report: report, truth: truth).utf8).write(
                    to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw EntoolFailure.badInput("cannot write '\(path)': \(error.localizedDescription)")
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if output.json {
            try printJSON(Result(report: report, truth: truth, seconds: seconds, store: directory?.path))
        } else {
            narrator.summarize(report, seconds: seconds)
            if let path = self.report { print("Report: \(path)") }
        }
    }

    private func makeScenario() throws -> ENScenario {
        if let path = scenario {
            var loaded = try ENScenario(json: readInputFile(path, what: "scenario"))
            if let seed { loaded.seed = seed }
            return loaded
        }
        if let devices {
            guard (2...100_000).contains(devices) else {
                throw EntoolFailure.badInput("--devices must be 2...100000, got \(devices)")
            }
            let days = self.days ?? 14
            guard (1...366).contains(days) else { throw EntoolFailure.badInput("--days must be 1...366, got \(days)") }
            return ENScenario.randomTown(devices: devices, days: days, seed: seed ?? 1)
        }
        var story = ENScenario.sampleStory(seed: seed ?? 2020)
        if let days {
            guard (1...366).contains(days) else { throw EntoolFailure.badInput("--days must be 1...366, got \(days)") }
            story.days = max(days, 5)
        }
        return story
    }
}

/// Turns simulation events into sentences (or a progress bar) for a person.
final class DemoNarrator: Sendable {
    let verbose: Bool
    let progress: Bool
    private let state = Locked((publishing: Duration.zero, detecting: Duration.zero, detections: 0))

    init(verbose: Bool, progress: Bool) {
        self.verbose = verbose
        self.progress = progress
    }

    func handle(_ event: ENSimulationEvent) {
        switch event {
        case .dayStarted(let day, _, let date, _):
            say("\nDay \(day + 1), \(date.formatted(.iso8601.year().month().day()))")
        case .encounter(let first, let second, let minutes, let distance, let heardByFirst, let heardBySecond):
            say(
                "  \(first) and \(second) spend \(minutes) min \(distance.formatted()) m apart: \(second) hears "
                    + "\(first) in \(heardBySecond) scans, \(first) hears \(second) in \(heardByFirst).")
        case .shared(let device, let sharing, let keys, let accepted, let duplicates):
            say(
                "  \(device) tests positive and shares \(keys) key\(keys == 1 ? "" : "s")"
                    + (sharing == .preAuthorized ? " (pre-authorized)" : "")
                    + ": the key server stores \(accepted) new"
                    + (duplicates > 0 ? ", \(duplicates) already known" : "")
                    + ".")
        case .published(let files, let elapsed):
            state.withLock { $0.publishing += elapsed }
            if !files.isEmpty {
                say("  The key server publishes \(files.joined(separator: ", ")) (\(milliseconds(elapsed))).")
            }
        case .detected(let device, let files, let notified, let minutes, let score, let elapsed):
            state.withLock {
                $0.detecting += elapsed
                $0.detections += 1
            }
            say(
                "  \(device) detects with \(files) new file\(files == 1 ? "" : "s"): "
                    + (notified
                        ? "NOTIFIED, \(minutes.formatted(.number.precision(.fractionLength(1)))) weighted minutes, score \(score.formatted())"
                        : minutes > 0
                            ? "\(minutes.formatted(.number.precision(.fractionLength(1)))) weighted minutes, below the threshold"
                            : "no exposure")
                    + " (\(milliseconds(elapsed))).")
        case .dayFinished(let day, let days, _):
            if progress {
                let width = 30
                let done = (day + 1) * width / max(days, 1)
                FileHandle.standardError.write(
                    Data(
                        "\r[\(String(repeating: "#", count: done))\(String(repeating: ".", count: width - done))] day \(day + 1)/\(days)"
                            .utf8))
            }
        }
    }

    func finish() {
        if progress { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    func summarize(_ report: ENSimulationReport, seconds: Double) {
        let timings = state.withLock { $0 }
        print("\nRisk at the end:")
        let shown =
            report.devices.count <= 10 ? report.devices : report.devices.filter(\.notified).prefix(10).map { $0 }
        for device in shown {
            let risk =
                device.notified
                ? "notified on day \((device.notifiedOnDay ?? 0) + 1): \(device.windows.count) exposure window\(device.windows.count == 1 ? "" : "s"), "
                    + "\(device.weightedMinutes.formatted(.number.precision(.fractionLength(1)))) weighted minutes, score \(device.score.formatted())"
                : device.keysShared > 0 ? "tested positive, shared \(device.keysShared) keys" : "not notified"
            print("  \(device.name): \(risk) (\(device.sightings) sightings)")
        }
        let notified = report.devices.filter(\.notified).count
        print(
            "\n\(notified) of \(report.devices.count) phones notified; \(report.keysAccepted) keys in "
                + "\(report.filesPublished) signed files; \(timings.detections) detections in "
                + "\(milliseconds(timings.detecting)), publishing \(milliseconds(timings.publishing)); "
                + "\(seconds.formatted(.number.precision(.fractionLength(2)))) s in all.")
    }

    private func say(_ line: String) {
        if verbose { print(line) }
    }

    private func milliseconds(_ duration: Duration) -> String {
        let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return ms >= 1000
            ? "\((ms / 1000).formatted(.number.precision(.fractionLength(2)))) s" : "\(Int(ms.rounded())) ms"
    }
}
