import ArgumentParser
import Foundation

/// `swift run -c release Benchmarks`: times the package's hot paths and prints a table (or JSON).
@main
struct Benchmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "Benchmarks",
        abstract: "Times key derivation, export parsing, matching, scoring and the store.",
        discussion: "Run it as `swift run -c release Benchmarks`: a debug build's numbers mean nothing."
    )

    @Option(
        help: "Run only the suites whose name contains this text (crypto, export, matching, detection, risk, store).")
    var filter: String?

    @Option(help: "Samples per measurement; the best and the median are reported.")
    var iterations: Int = 5

    @Flag(help: "A CI-sized run: small inputs, few samples.")
    var quick = false

    @Flag(help: "Print the results as JSON on standard output.")
    var json = false

    @Option(help: "Run the matcher on a data set in enbench's format (see shared/bench/README.md).")
    var dataset: String?

    @Option(help: "The largest thread count to measure (default: all cores).")
    var threads: Int?

    @Flag(
        help: """
            Run every suite in this process. By default, when more than one suite runs, each runs in a process of its \
            own, so that no suite's peak memory counts what an earlier one left behind.
            """)
    var oneProcess = false

    /// The one suite a child process runs (exact name); set by the parent, not meant for the command line.
    @Option(help: .hidden)
    var suite: String?

    /// Progress lines even with `--json` (a child process's, which go to the parent's standard error).
    @Flag(help: .hidden)
    var progress = false

    mutating func validate() throws {
        guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
    }

    func run() throws {
        #if DEBUG
            FileHandle.standardError.write(
                Data(
                    "warning: this is a debug build; its timings mean nothing. Use `swift run -c release Benchmarks`.\n"
                        .utf8))
        #endif
        let context = BenchmarkContext(
            iterations: quick ? min(iterations, 3) : iterations,
            quick: quick,
            datasetPath: dataset,
            maxThreads: threads ?? ProcessInfo.processInfo.activeProcessorCount,
            verbose: !json || progress
        )
        var report = BenchmarkReport()
        let suites = allBenchmarkSuites.filter { candidate in
            if let suite { return candidate.name == suite }
            if dataset != nil && filter == nil { return candidate.name == "matching" }
            guard let filter else { return true }
            return candidate.name.localizedCaseInsensitiveContains(filter)
        }
        if suites.count > 1 && !oneProcess {
            for suite in suites {
                try runInChildProcess(suite.name, into: &report)
            }
        } else {
            for suite in suites {
                try suite.run(context, &report)
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            FileHandle.standardOutput.write(try encoder.encode(report))
            FileHandle.standardOutput.write(Data("\n".utf8))
        } else {
            print(report.table())
        }
        if !report.failures.isEmpty {
            throw BenchmarkFailure(messages: report.failures)
        }
    }
}

extension Benchmarks {
    /// Runs one suite in a new process of this executable, with this run's options, and adds its rows and gate
    /// failures to `report`. Its progress lines go to this process's standard error.
    func runInChildProcess(_ name: String, into report: inout BenchmarkReport) throws {
        var arguments = ["--suite", name, "--json", "--iterations", "\(iterations)"]
        if quick { arguments.append("--quick") }
        if let dataset { arguments += ["--dataset", dataset] }
        if let threads { arguments += ["--threads", "\(threads)"] }
        if !json { arguments.append("--progress") }
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let child = try? JSONDecoder().decode(BenchmarkReport.self, from: data) else {
            report.fail("suite \(name): its process ended (status \(process.terminationStatus)) without a report")
            return
        }
        report.results += child.results
        report.failures += child.failures
    }
}

/// A correctness gate failed: the run's numbers are invalid.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var messages: [String]
    var description: String { "benchmark correctness gate failed:\n" + messages.joined(separator: "\n") }
}
