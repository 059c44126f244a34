import ENCore
import ENCrypto
import ENMatching
import Foundation

/// Matching: N diagnosis keys (144 intervals each) against M observed identifiers, on 1 thread and on all
/// cores, with the C kernel (the CPU's best level) and the OpenSSL path (`portable`). Every row is gated: the
/// planted in-window sightings must be found and the out-of-window decoys rejected, or the run fails.
/// With `--dataset FILE` it matches a data set in enbench's format instead (see shared/bench/README.md).
let matchingBenchmarkSuite = BenchmarkSuite(name: "matching") { context, report in
    if let path = context.datasetPath {
        try MatchingBenchmark.runDataset(path: path, context: context, report: &report)
        return
    }
    // 5 M keys (a national peak: 14 days of about 358,000) are streamed from signed export files.
    let sizes: [(keys: Int, observations: Int, fromFiles: Bool)] =
        context.quick
        ? [(100_000, 10_000, false), (100_000, 1_000, true)]
        : [
            (5_000_000, 10_000, true), (5_000_000, 1_000, true), (5_000_000, 100_000, true),
            (100_000, 1_000, false), (100_000, 10_000, false), (100_000, 100_000, false),
            (1_000_000, 1_000, false), (1_000_000, 10_000, false), (1_000_000, 100_000, false),
        ]
    for size in sizes {
        try MatchingBenchmark.runSynthetic(
            keys: size.keys, observations: size.observations, fromFiles: size.fromFiles, context: context,
            report: &report)
    }
}

enum MatchingBenchmark {
    /// Thread counts to measure: 1 and the maximum (and 2 when the maximum is larger).
    static func threadCounts(_ context: BenchmarkContext) -> [Int] {
        Array(Set([1, min(2, context.maxThreads), context.maxThreads])).sorted()
    }

    /// The peak resident set size of the process in bytes (Linux `VmHWM`), or nil elsewhere.
    static func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
        }
        return nil
    }

    /// Resets the peak resident set size (Linux: writing 5 to clear_refs), so that each row reports its own
    /// peak rather than an earlier suite's. The heap that earlier rows freed (writing the export files, say)
    /// is first handed back to the system (`malloc_trim`), or it would count toward this row's peak. A plain
    /// `write(2)`: Foundation's file writing opens procfs files in a way the kernel refuses, silently.
    static func resetPeakResident() {
        #if os(Linux)
            // glibc's malloc_trim (not in Swift's Glibc module), looked up in the loaded libc.
            if let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
                _ = unsafeBitCast(trim, to: (@convention(c) (Int) -> Int32).self)(0)
            }
            let fd = open("/proc/self/clear_refs", O_WRONLY)
            guard fd >= 0 else { return }
            _ = write(fd, "5", 1)
            close(fd)
        #endif
    }

    // MARK: Synthetic data sets

    /// A deterministic data set in the style of enbench: N random keys on random days of 14, M random
    /// observations over those days, plus planted sightings of 40 keys (1-6 consecutive intervals at +-1) and,
    /// for every 4th planted key, a decoy 30 intervals late that must not match. Keys are produced lazily in
    /// chunks of 30,000 (the reference key server's file size), so 5 M keys never sit in memory at once (they
    /// are written to export files chunk by chunk).
    struct SyntheticSet {
        static let firstDay: UInt32 = 2_650_032 / 144
        let keyCount: Int
        let sightings: [ENSighting]
        /// (key index, derived interval, observed interval) of every planted in-window sighting.
        let expected: Set<[UInt32]>
        let plantedKeys: Int

        static func mix(_ value: UInt64) -> UInt64 {
            var z = value &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        static func key(_ index: Int) -> ENTemporaryExposureKey {
            let a = mix(UInt64(index) &* 2 &+ 1)
            let b = mix(UInt64(index) &* 2 &+ 2)
            var data = Data(count: 16)
            data.withUnsafeMutableBytes { bytes in
                bytes.storeBytes(of: a, as: UInt64.self)
                bytes.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
            }
            let day = firstDay + UInt32(truncatingIfNeeded: a >> 40) % 14
            return ENTemporaryExposureKey(
                keyData: data, rollingStartNumber: ENIntervalNumber(day * 144), diagnosisReportType: .confirmedTest)
        }

        /// The keys, as a lazy sequence of chunks.
        var chunks: some Sequence<[ENTemporaryExposureKey]> {
            let count = keyCount
            return stride(from: 0, to: count, by: 30_000).lazy.map { start in
                (start..<min(start + 30_000, count)).map { SyntheticSet.key($0) }
            }
        }

        init(keys: Int, observations: Int) throws {
            keyCount = keys
            var sightings: [ENSighting] = []
            var expected = Set<[UInt32]>()
            let planted = 40
            for k in 0..<planted {
                let index = k * (keys / planted) + 17
                let key = Self.key(index)
                let rpik = try RollingProximityIdentifierKey(temporaryExposureKey: key)
                let offset = Int(Self.mix(UInt64(k) + 99) % 138)
                for j in 0..<(1 + k % 6) {
                    let derived = key.rollingStartNumber.adding(offset + j)
                    let observed = derived.adding(j % 3 - 1)
                    let rpi = try rpik.identifier(for: derived)
                    sightings.append(ENSighting(rpi: rpi, aem: .init(rawValue: 0), timestamp: observed.date, rssi: -60))
                    expected.insert([UInt32(index), derived, observed])
                }
                if k % 4 == 0 {
                    let derived = key.rollingStartNumber.adding(offset)
                    sightings.append(
                        ENSighting(
                            rpi: try rpik.identifier(for: derived), aem: .init(rawValue: 0),
                            timestamp: derived.adding(30).date, rssi: -60))
                }
            }
            var state: UInt64 = 0x5eed
            while sightings.count < observations {
                state = Self.mix(state)
                let low = state
                state = Self.mix(state)
                let interval = Self.firstDay * 144 + UInt32(truncatingIfNeeded: state >> 32) % (14 * 144)
                sightings.append(
                    ENSighting(
                        rpi: RollingProximityIdentifier(lowWord: low, highWord: state), aem: .init(rawValue: 0),
                        timestamp: ENIntervalNumber(interval).date, rssi: -60))
            }
            self.sightings = sightings
            self.expected = expected
            self.plantedKeys = planted
        }

        /// Whether a result is exactly the planted set.
        func check(_ result: ENMatchingResult) -> String? {
            var found = Set<[UInt32]>()
            for match in result.matches {
                let a = match.key.keyData.withUnsafeBytes { $0.load(as: UInt64.self) }
                // Recover the key index from the planted candidates.
                guard
                    let index = (0..<plantedKeys).map({ $0 * (keyCount / plantedKeys) + 17 })
                        .first(where: { SyntheticSet.mix(UInt64($0) &* 2 &+ 1) == a })
                else { return "matched a key that was not planted: \(match.key.keyData.hexString)" }
                for s in match.sightings {
                    found.insert([UInt32(index), s.derivedInterval, s.sighting.interval])
                }
            }
            if found != expected {
                return "expected \(expected.count) planted pairs, found \(found.count) "
                    + "(\(found.subtracting(expected).count) wrong, \(expected.subtracting(found).count) missing)"
            }
            return nil
        }
    }

    static func runSynthetic(
        keys: Int, observations: Int, fromFiles: Bool, context: BenchmarkContext, report: inout BenchmarkReport
    ) throws {
        let set = try SyntheticSet(keys: keys, observations: observations)
        let label = "N=\(keys.formatted(.number.grouping(.never))) M=\(observations)" + (fromFiles ? " from files" : "")
        let iterations = keys >= 1_000_000 ? 1 : context.iterations
        let kernels: [ENMatchingKernel] =
            keys <= 100_000
            ? Array(Set([ENMatchingKernel.best, .portable])).sorted { $0.rawValue > $1.rawValue } : [.best]
        // In memory, keys sit in memory before the clock starts (as in enbench). From files, they are written as
        // signed export files of 30,000 keys (the reference key server's file size) before the clock starts,
        // and read back file by file while matching: unzip, signature check and key scan are inside the timed
        // region, and memory stays bounded by one file and one batch of keys.
        let inMemory: [[ENTemporaryExposureKey]]? = fromFiles ? nil : Array(set.chunks)
        var files: ExportKeyFiles?
        if fromFiles {
            context.log("matching \(label): writing the keys as signed export files")
            files = try ExportKeyFiles(chunks: set.chunks)
        }
        for kernel in kernels {
            for threads in threadCounts(context) {
                context.log("matching \(label) \(kernel) threads=\(threads)")
                resetPeakResident()
                var last: ENMatchingResult?
                let timing = try measure(iterations: iterations, operations: keys) {
                    let matcher = try ENMatcher(sightings: set.sightings)
                    let options = ENMatchingOptions(threadCount: threads, kernel: kernel)
                    if let inMemory {
                        last = try matcher.match(keyChunks: inMemory, options: options)
                    } else if let files {
                        last = try matcher.match(encodedChunks: files.encodedChunks(), options: options)
                        try files.checkRead()
                    }
                }
                let peak = peakResidentBytes()
                guard let result = last else { continue }
                if let problem = set.check(result) {
                    report.fail("matching \(label) \(kernel) threads=\(threads): \(problem)")
                }
                if result.statistics.keysReceived != keys {
                    report.fail("matching \(label): \(result.statistics.keysReceived) keys read, expected \(keys)")
                }
                var details = [
                    "threads": "\(threads)", "kernel": kernel.description, "pairs": "\(result.matchedSightingCount)",
                    "keysMatched": "\(result.matches.count)",
                    "input": files.map { "streamed from \($0.files.count) signed export files" } ?? "in memory",
                ]
                if let peak { details["peakRSS_MB"] = String(format: "%.0f", Double(peak) / 1_048_576) }
                report.add(
                    BenchmarkResult(
                        suite: "matching", name: "\(label) \(kernel) \(threads)T", unit: "key", best: timing.best,
                        median: timing.median, details: details))
                if fromFiles, let peak, peak > 256 << 20 {
                    report.fail("matching \(label): peak RSS \(peak >> 20) MB exceeds 256 MB for streamed keys")
                }
            }
        }
        if let files {
            // What reading the files costs on the calling thread (included in the rows above): unzipping,
            // verifying and finding the keys; the matching threads decode them.
            let reading = try measure(iterations: 1, operations: keys) {
                var count = 0
                for chunk in files.encodedChunks() { count += chunk.count }
                try files.checkRead()
                blackHole(count)
            }
            // The same with every key decoded on the calling thread, as the matcher's `[ENTemporaryExposureKey]`
            // input takes them (the rows above do not).
            let decoding = try measure(iterations: 1, operations: keys) {
                var count = 0
                for chunk in files.keyChunks() { count += chunk.count }
                try files.checkRead()
                blackHole(count)
            }
            let details = [
                "files": "\(files.files.count)", "MB": String(format: "%.0f", Double(files.byteCount) / 1_000_000),
            ]
            report.add(
                BenchmarkResult(
                    suite: "matching",
                    name: "N=\(keys.formatted(.number.grouping(.never))) reading the files only",
                    unit: "key", best: reading.best, median: reading.median,
                    details: details.merging(
                        ["note": "unzip + verify + find the keys; included in the matching rows of this N"]
                    ) { $1 }))
            report.add(
                BenchmarkResult(
                    suite: "matching",
                    name: "N=\(keys.formatted(.number.grouping(.never))) reading and decoding the files",
                    unit: "key", best: decoding.best, median: decoding.median,
                    details: details.merging(
                        ["note": "unzip + verify + decode every key on one thread (not what the rows above do)"]
                    ) { $1 }))
        }
    }

    // MARK: enbench data sets

    struct Dataset {
        var keys: [ENTemporaryExposureKey] = []
        var sightings: [ENSighting] = []

        init(path: String) throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard data.count >= 8 else { throw ENError(.badFormat, "\(path): shorter than its 8-byte header") }
            func u32(_ offset: Int) -> UInt32 {
                data.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
            }
            let n = Int(u32(0))
            let m = Int(u32(4))
            guard data.count == 8 + n * 24 + m * 20 else {
                throw ENError(
                    .badFormat, "\(path): N=\(n) M=\(m) needs \(8 + n * 24 + m * 20) bytes, the file has \(data.count)")
            }
            keys.reserveCapacity(n)
            for i in 0..<n {
                let at = 8 + 24 * i
                keys.append(
                    ENTemporaryExposureKey(
                        keyData: data.subdata(in: at..<(at + 16)), rollingStartNumber: ENIntervalNumber(u32(at + 16)),
                        rollingPeriod: u32(at + 20), diagnosisReportType: .confirmedTest))
            }
            sightings.reserveCapacity(m)
            for i in 0..<m {
                let at = 8 + 24 * n + 20 * i
                let rpi = try RollingProximityIdentifier(bytes: data[at..<(at + 16)])
                sightings.append(
                    ENSighting(
                        rpi: rpi, aem: .init(rawValue: 0), timestamp: ENIntervalNumber(u32(at + 16)).date, rssi: -60))
            }
        }
    }

    static func runDataset(path: String, context: BenchmarkContext, report: inout BenchmarkReport) throws {
        let dataset = try Dataset(path: path)
        let n = dataset.keys.count
        context.log("dataset \(path): N=\(n) M=\(dataset.sightings.count)")
        var pairCounts: Set<Int> = []
        let kernels = ENMatchingKernel.supported.reversed()
        for kernel in kernels {
            for threads in threadCounts(context) {
                var last: ENMatchingResult?
                let timing = try measure(iterations: context.iterations, operations: n) {
                    let matcher = try ENMatcher(sightings: dataset.sightings)
                    last = try matcher.match(dataset.keys, options: .init(threadCount: threads, kernel: kernel))
                }
                guard let result = last else { continue }
                pairCounts.insert(result.matchedSightingCount)
                // Every reported pair, re-checked with ENCrypto (the independent OpenSSL path).
                for match in result.matches {
                    let rpik = try RollingProximityIdentifierKey(temporaryExposureKey: match.key)
                    for s in match.sightings
                    where try rpik.identifier(for: s.derivedInterval) != s.sighting.rpi
                        || abs(s.derivedInterval.intervals(to: s.sighting.interval)) > 12
                        || !match.key.validityIntervals.contains(s.derivedInterval)
                    {
                        report.fail(
                            "dataset \(kernel) threads=\(threads): invalid pair for key \(match.key.keyData.hexString)")
                    }
                }
                let label = kernel == .portable ? "OpenSSL path" : "C kernel \(kernel)"
                report.add(
                    BenchmarkResult(
                        suite: "matching", name: "dataset \(label) \(threads)T", unit: "key", best: timing.best,
                        median: timing.median,
                        details: [
                            "threads": "\(threads)", "kernel": kernel.description,
                            "pairs": "\(result.matchedSightingCount)",
                            "keysMatched": "\(result.matches.count)", "N": "\(n)", "M": "\(dataset.sightings.count)",
                        ]))
                context.log(
                    "dataset \(label) threads=\(threads): \(result.matchedSightingCount) pairs / \(result.matches.count) keys, "
                        + String(format: "%.1f ns/key", timing.best))
            }
        }
        if pairCounts.count > 1 {
            report.fail("dataset: kernels and thread counts disagree on the pair count: \(pairCounts.sorted())")
        }
    }
}
