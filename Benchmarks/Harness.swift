import Foundation

// timespec and clock_gettime: a release build (whole module) needs their defining module imported.
#if canImport(Glibc)
    import CoreFoundation
#endif

/// What every suite is told about the run.
struct BenchmarkContext: Sendable {
    /// Samples per measurement.
    var iterations: Int
    /// A CI-sized run.
    var quick: Bool
    /// `--dataset FILE`, for the matching suite.
    var datasetPath: String?
    /// The largest thread count to measure.
    var maxThreads: Int
    /// Whether to print progress lines to standard error.
    var verbose: Bool

    /// Prints a progress line to standard error (never to standard output, which may carry JSON).
    func log(_ message: String) {
        guard verbose else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// A group of related measurements, registered in `allBenchmarkSuites`.
struct BenchmarkSuite: Sendable {
    /// Short lower-case name used by `--filter`: crypto, export, matching, risk, store.
    var name: String
    /// Runs the measurements and appends them to the report.
    var run: @Sendable (BenchmarkContext, inout BenchmarkReport) throws -> Void
}

/// One measured row.
struct BenchmarkResult: Codable, Sendable {
    /// The suite's name.
    var suite: String
    /// What was measured, for example `HKDF RPIK derivation`.
    var name: String
    /// The unit one operation stands for, for example `key` or `window`.
    var unit: String
    /// The best sample, in nanoseconds per operation.
    var bestNanosecondsPerOperation: Double
    /// The median sample, in nanoseconds per operation.
    var medianNanosecondsPerOperation: Double
    /// Operations per second at the best sample.
    var operationsPerSecond: Double { bestNanosecondsPerOperation > 0 ? 1e9 / bestNanosecondsPerOperation : 0 }
    /// Anything else worth printing (threads, sizes, MB/s, matched pairs).
    var details: [String: String] = [:]

    private enum CodingKeys: String, CodingKey {
        case suite, name, unit, bestNanosecondsPerOperation, medianNanosecondsPerOperation, operationsPerSecond, details
    }

    init(suite: String, name: String, unit: String, best: Double, median: Double, details: [String: String] = [:]) {
        self.suite = suite
        self.name = name
        self.unit = unit
        self.bestNanosecondsPerOperation = best
        self.medianNanosecondsPerOperation = median
        self.details = details
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        suite = try c.decode(String.self, forKey: .suite)
        name = try c.decode(String.self, forKey: .name)
        unit = try c.decode(String.self, forKey: .unit)
        bestNanosecondsPerOperation = try c.decode(Double.self, forKey: .bestNanosecondsPerOperation)
        medianNanosecondsPerOperation = try c.decode(Double.self, forKey: .medianNanosecondsPerOperation)
        details = try c.decode([String: String].self, forKey: .details)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(suite, forKey: .suite)
        try c.encode(name, forKey: .name)
        try c.encode(unit, forKey: .unit)
        try c.encode(bestNanosecondsPerOperation, forKey: .bestNanosecondsPerOperation)
        try c.encode(medianNanosecondsPerOperation, forKey: .medianNanosecondsPerOperation)
        try c.encode(operationsPerSecond, forKey: .operationsPerSecond)
        try c.encode(details, forKey: .details)
    }
}

/// Everything a run measured.
struct BenchmarkReport: Codable, Sendable {
    /// The rows, in the order they were measured.
    var results: [BenchmarkResult] = []
    /// Correctness-gate failures; any entry makes the run exit non-zero.
    var failures: [String] = []
    /// Whether this is a debug build (its numbers mean nothing).
    var debugBuild: Bool = {
        #if DEBUG
            true
        #else
            false
        #endif
    }()

    /// Appends a row.
    mutating func add(_ result: BenchmarkResult) { results.append(result) }

    /// Records a failed correctness gate.
    mutating func fail(_ message: String) { failures.append(message) }

    /// A plain-text table.
    func table() -> String {
        var rows: [[String]] = [["suite", "measurement", "best ns/op", "median ns/op", "ops/s", "unit", "details"]]
        for r in results {
            rows.append([
                r.suite, r.name, format(r.bestNanosecondsPerOperation), format(r.medianNanosecondsPerOperation),
                format(r.operationsPerSecond), r.unit,
                r.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            zip(row, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        lines.insert(String(repeating: "-", count: lines[0].count), at: 1)
        if debugBuild { lines.append("(debug build: these numbers mean nothing)") }
        for failure in failures { lines.append("FAILED: \(failure)") }
        return lines.joined(separator: "\n")
    }

    private func format(_ value: Double) -> String {
        if value >= 1e6 { return String(format: "%.3gM", value / 1e6) }
        if value >= 1e4 { return String(format: "%.1fk", value / 1e3) }
        return String(format: "%.1f", value)
    }
}

/// A timing: best and median over the samples, per operation.
struct Measurement: Sendable {
    /// Nanoseconds per operation at the best sample.
    var best: Double
    /// Nanoseconds per operation at the median sample.
    var median: Double
}

/// Runs `body` once to warm up, then `iterations` times, and returns nanoseconds per operation.
///
/// `operations` is how many operations one call of `body` performs.
func measure(iterations: Int, operations: Int, _ body: () throws -> Void) rethrows -> Measurement {
    try body()
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    let clock = ContinuousClock()
    for _ in 0..<iterations {
        let elapsed = try clock.measure { try body() }
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        samples.append(ns / Double(max(operations, 1)))
    }
    samples.sort()
    return Measurement(best: samples[0], median: samples[samples.count / 2])
}

/// Keeps the optimiser from deleting a computation whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// CPU time in seconds on `clock`: `CLOCK_THREAD_CPUTIME_ID` (this thread) or `CLOCK_PROCESS_CPUTIME_ID` (every
/// thread of the process). What a row costs in work, which other processes on a shared machine disturb less than
/// its wall time.
func cpuSeconds(_ clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
