import Dispatch
import ENCore
import ENCrypto
import ENExportFormat
import ENMatching
import ExposureNotificationKit
import Foundation

/// Detection through `ENManager`: N keys in signed export files against 14 days of M = 20,000 sightings in the
/// framework's store, as an app runs it (`detectExposures(configuration:diagnosisKeyURLs:)`), then again from
/// the cache (`detectExposures(configuration:)`), on 1 thread and on all cores, with peak memory. Beside each
/// cold row, the bare matcher on the same files (`ENMatcher` streaming the files itself, as the matching suite
/// does) in the same run, so that the facade's cost is a ratio measured here. Every row is gated: the planted
/// sightings must give exposure windows and the decoys none.
let detectionBenchmarkSuite = BenchmarkSuite(name: "detection") { context, report in
    let sizes = context.quick ? [100_000] : [1_000_000, 5_000_000]
    for keys in sizes {
        try DetectionBenchmark.run(keys: keys, observations: 20_000, context: context, report: &report)
    }
}

enum DetectionBenchmark {
    /// Runs `body` to completion from synchronous code (the benchmark harness is synchronous).
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    static func run(keys: Int, observations: Int, context: BenchmarkContext, report: inout BenchmarkReport) throws {
        let set = try MatchingBenchmark.SyntheticSet(keys: keys, observations: observations)
        let label = "N=\(keys.formatted(.number.grouping(.never))) M=\(observations)"
        context.log("detection \(label): writing the keys as signed export files")
        let files = try ExportKeyFiles(chunks: set.chunks)
        let trusted = files.verifier.trustedKeys
        // The data set's last day, at noon: every key and sighting is within the 14 days.
        let lastInterval = set.sightings.map(\.interval).max() ?? 0
        let now = Date(timeIntervalSince1970: Double(lastInterval / 144 * 144 + 72) * 600)
        var scoring = ENExposureConfiguration()
        scoring.infectiousnessByDaysSinceOnsetOfSymptoms = Dictionary(
            uniqueKeysWithValues: (-14...14).map { ($0, ENInfectiousness.standard) }
                + [(ENDaysSinceOnsetOfSymptomsUnknown, .standard)])
        let configuration = scoring
        let sightings = set.sightings
        let expectedKeys = set.plantedKeys

        for threads in MatchingBenchmark.threadCounts(context) {
            // The bare matcher on the same files, same thread count, same run.
            context.log("detection \(label): bare matcher, threads=\(threads)")
            let bareCPUStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
            let bare = try measure(iterations: 1, operations: keys) {
                let matcher = try ENMatcher(sightings: sightings)
                let result = try matcher.match(
                    keyChunks: files.keyChunks(), options: ENMatchingOptions(threadCount: threads))
                try files.checkRead()
                blackHole(result)
            }
            // measure() runs the body twice (a warm-up, then the sample).
            let bareCPU = (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - bareCPUStart) / 2 * 1e9 / Double(keys)
            report.add(
                BenchmarkResult(
                    suite: "detection", name: "\(label) bare matcher from files \(threads)T", unit: "key",
                    best: bare.best, median: bare.median,
                    details: ["threads": "\(threads)", "cpu_ns_per_key": String(format: "%.0f", bareCPU)]))

            var coldSamples: [Double] = []
            var cachedSamples: [Double] = []
            var coldCPU: [Double] = []
            var cachedCPU: [Double] = []
            var coldPeak = 0
            var cachedPeak = 0
            var windows = 0
            for sample in 0..<2 {
                // A fresh device for every sample: its store in a directory of its own, its sightings in place.
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "enbench-detection-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: directory) }
                let environment = ENEnvironment(
                    consent: ENFixedConsent(true), radio: ENReplayRadio(sightings: sightings), clock: ENFixedClock(now),
                    storeLocation: .directory(directory), trustedKeys: trusted, apiVersion: .version2,
                    limits: ENLimits(detectionsPerDayVersion2: 100, maximumDetectionThreads: threads))
                let manager = ENManager(environment: environment)
                manager.dispatchQueue = DispatchQueue(label: "enbench")
                try wait {
                    try await manager.activate()
                    try await manager.setExposureNotificationEnabled(true)
                }
                let urls = files.files
                MatchingBenchmark.resetPeakResident()
                let clock = ContinuousClock()
                var summary: ENExposureDetectionSummary?
                let coldCPUStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
                let cold = try clock.measure {
                    summary = try wait {
                        try await manager.detectExposures(configuration: configuration, diagnosisKeyURLs: urls)
                    }
                }
                let coldCPUSeconds = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - coldCPUStart
                coldPeak = max(coldPeak, MatchingBenchmark.peakResidentBytes() ?? 0)
                let found = try wait { [summary] in try await manager.getExposureWindows(summary: summary!) }
                windows = found.count
                MatchingBenchmark.resetPeakResident()
                var fromCache: ENExposureDetectionSummary?
                let cachedCPUStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
                let cached = try clock.measure {
                    fromCache = try wait { try await manager.detectExposures(configuration: configuration) }
                }
                let cachedCPUSeconds = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - cachedCPUStart
                cachedPeak = max(cachedPeak, MatchingBenchmark.peakResidentBytes() ?? 0)
                if fromCache != summary {
                    report.fail("detection \(label): the cache gives another summary than the files")
                }
                manager.invalidate()
                if sample == 0 && !context.quick { continue }  // the first sample warms up
                coldSamples.append(nanoseconds(cold) / Double(keys))
                cachedSamples.append(nanoseconds(cached) / Double(keys))
                coldCPU.append(coldCPUSeconds * 1e9 / Double(keys))
                cachedCPU.append(cachedCPUSeconds * 1e9 / Double(keys))
            }
            if windows < expectedKeys {
                report.fail("detection \(label): \(windows) exposure windows for \(expectedKeys) planted keys")
            }
            for (name, samples, cpu, peak) in [
                ("cold, from files", coldSamples, coldCPU, coldPeak),
                ("from the cache", cachedSamples, cachedCPU, cachedPeak),
            ] {
                let sorted = samples.sorted()
                let cpuMedian = cpu.sorted()[cpu.count / 2]
                var details = [
                    "threads": "\(threads)", "windows": "\(windows)",
                    "peakRSS_MB": String(format: "%.0f", Double(peak) / 1_048_576),
                    "files": "\(files.files.count)", "cpu_ns_per_key": String(format: "%.0f", cpuMedian),
                ]
                if name.hasPrefix("cold") {
                    details["vs_bare"] = String(format: "%.2fx", sorted[sorted.count / 2] / bare.median)
                    details["cpu_vs_bare"] = String(format: "%.2fx", cpuMedian / bareCPU)
                }
                report.add(
                    BenchmarkResult(
                        suite: "detection", name: "\(label) ENManager \(name) \(threads)T", unit: "key",
                        best: sorted[0], median: sorted[sorted.count / 2], details: details))
                if peak > 256 << 20 {
                    report.fail("detection \(label) \(name): peak RSS \(peak >> 20) MB exceeds 256 MB")
                }
            }
        }
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }
}
