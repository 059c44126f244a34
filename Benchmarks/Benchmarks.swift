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
            verbose: !json
        )
        var report = BenchmarkReport()
        let suites = allBenchmarkSuites.filter { suite in
            if dataset != nil && filter == nil { return suite.name == "matching" }
            guard let filter else { return true }
            return suite.name.localizedCaseInsensitiveContains(filter)
        }
        for suite in suites {
            try suite.run(context, &report)
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

/// A correctness gate failed: the run's numbers are invalid.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var messages: [String]
    var description: String { "benchmark correctness gate failed:\n" + messages.joined(separator: "\n") }
}
