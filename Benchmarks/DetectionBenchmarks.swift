import Dispatch
import ENCore
import ENCrypto
import ENExportFormat
import ENMatching
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation

/// Detection through `ENManager`: N keys in signed export files against 14 days of M = 20,000 sightings in the
/// framework's store, as an app runs it (`detectExposures(configuration:diagnosisKeyURLs:)`), then again from
/// the cache (`detectExposures(configuration:)`), on 1 thread and on all cores, with peak memory. Beside each
/// cold row, the bare matcher on the same files (`ENMatcher` streaming the files itself, as the matching suite
/// does) in the same rounds, so that the facade's cost is a ratio measured here (`--iterations` rounds after a
/// warm-up, each row's median and best; the ratios are medians of the rounds' ratios). A pass with the whole process
/// confined to one core (Linux, not in quick runs) gives the time that more threads speed up (`vs_1core`). Every
/// row is gated: the planted sightings must give exposure windows and the decoys none.
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

        // One pass per thread count, and one of one thread with the whole process confined to one core: with one
        // matching thread a detection still reads and verifies on another core, so the one-core pass is the time
        // that more threads are a speed-up of (`vs_1core` on the rows of the other passes).
        var passes = MatchingBenchmark.threadCounts(context).map { (threads: $0, oneCore: false) }
        if CoreAffinity.isAvailable && context.maxThreads > 1 && !context.quick {
            passes.insert((threads: 1, oneCore: true), at: 1)
        }
        var oneCoreMedians: [String: Double] = [:]
        for (threads, oneCore) in passes {
            if oneCore && !CoreAffinity.confine(to: [0]) {
                report.fail("detection \(label): the process could not be confined to one core")
            }
            defer { if oneCore { CoreAffinity.release() } }
            let pass = oneCore ? "1 core" : "\(threads)T"
            // Rounds of three samples in turn: the bare matcher on the same files with the same thread count, a
            // fresh device detecting from the files, then from its cache. The facade's cost is the median of the
            // rounds' ratios, so that a drift of the machine's speed between rows moves both sides of a ratio.
            // The first round warms up (not in quick runs).
            let rounds = context.quick ? 1 : max(1, context.iterations) + 1
            context.log("detection \(label): \(oneCore ? "one core, " : "")threads=\(threads), \(rounds) rounds")
            var bareSamples: [Double] = []
            var bareCPU: [Double] = []
            var coldSamples: [Double] = []
            var cachedSamples: [Double] = []
            var coldCPU: [Double] = []
            var cachedCPU: [Double] = []
            var coldRatios: [Double] = []
            var coldCPURatios: [Double] = []
            var coldPeak = 0
            var cachedPeak = 0
            var windows = 0
            let clock = ContinuousClock()
            for round in 0..<rounds {
                let bareCPUStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
                let bare = try clock.measure {
                    let matcher = try ENMatcher(sightings: sightings)
                    let result = try matcher.match(
                        encodedChunks: files.encodedChunks(), options: ENMatchingOptions(threadCount: threads))
                    try files.checkRead()
                    blackHole(result)
                }
                let bareCPUSeconds = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - bareCPUStart

                // A fresh device for every round: its store in a directory of its own, its sightings in place.
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
                if round == 0 && !context.quick { continue }  // the first round warms up
                let perKey = { (seconds: Double) in seconds * 1e9 / Double(keys) }
                bareSamples.append(nanoseconds(bare) / Double(keys))
                bareCPU.append(perKey(bareCPUSeconds))
                coldSamples.append(nanoseconds(cold) / Double(keys))
                cachedSamples.append(nanoseconds(cached) / Double(keys))
                coldCPU.append(perKey(coldCPUSeconds))
                cachedCPU.append(perKey(cachedCPUSeconds))
                coldRatios.append(nanoseconds(cold) / nanoseconds(bare))
                coldCPURatios.append(coldCPUSeconds / bareCPUSeconds)
            }
            if windows < expectedKeys {
                report.fail("detection \(label): \(windows) exposure windows for \(expectedKeys) planted keys")
            }
            let median = { (values: [Double]) in values.sorted()[values.count / 2] }
            // The speed-up over one core, for the passes after it.
            func speedUp(_ row: String, _ samples: [Double], into details: inout [String: String]) {
                if oneCore {
                    oneCoreMedians[row] = median(samples)
                } else if let base = oneCoreMedians[row] {
                    details["vs_1core"] = String(format: "%.2fx", median(samples) / base)
                }
            }
            var bareDetails = [
                "threads": "\(threads)", "cpu_ns_per_key": String(format: "%.0f", median(bareCPU)),
                "rounds": "\(bareSamples.count)",
            ]
            speedUp("bare", bareSamples, into: &bareDetails)
            report.add(
                BenchmarkResult(
                    suite: "detection", name: "\(label) bare matcher from files \(pass)", unit: "key",
                    best: bareSamples.min()!, median: median(bareSamples), details: bareDetails))
            for (name, samples, cpu, peak) in [
                ("cold, from files", coldSamples, coldCPU, coldPeak),
                ("from the cache", cachedSamples, cachedCPU, cachedPeak),
            ] {
                var details = [
                    "threads": "\(threads)", "windows": "\(windows)",
                    "peakRSS_MB": String(format: "%.0f", Double(peak) / 1_048_576),
                    "files": "\(files.files.count)", "cpu_ns_per_key": String(format: "%.0f", median(cpu)),
                    "rounds": "\(samples.count)",
                ]
                if name.hasPrefix("cold") {
                    // The median of the rounds' ratios, and their range.
                    details["vs_bare"] = String(
                        format: "%.2fx (%.2f-%.2f)", median(coldRatios), coldRatios.min()!, coldRatios.max()!)
                    details["cpu_vs_bare"] = String(format: "%.2fx", median(coldCPURatios))
                }
                speedUp(name, samples, into: &details)
                report.add(
                    BenchmarkResult(
                        suite: "detection", name: "\(label) ENManager \(name) \(pass)", unit: "key",
                        best: samples.min()!, median: median(samples), details: details))
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
