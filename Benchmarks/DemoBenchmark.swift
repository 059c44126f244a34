import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `entool demo` as a user runs it: the `entool` built beside this program, `--devices 10000 --days 14 --json` in a
/// child process (stores in memory), timed from outside; one row with the wall time per simulated device-day, the
/// child's user and system time and its peak memory. Target: the whole run under 60 s and 2 GB. Gated: the run
/// succeeds and every day completes. Skipped (with a note) when no `entool` is beside this program.
enum DemoBenchmark {
    static func run(_ context: BenchmarkContext, _ report: inout BenchmarkReport) throws {
        let (devices, days) = context.quick ? (200, 3) : (10_000, 14)
        let entool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("entool")
        guard FileManager.default.isExecutableFile(atPath: entool.path) else {
            context.log("simulation: no entool beside this program, the demo row is skipped")
            return
        }
        context.log("simulation: entool demo --devices \(devices) --days \(days)")
        let process = Process()
        process.executableURL = entool
        process.arguments = ["demo", "--devices", "\(devices)", "--days", "\(days)", "--json"]
        let output = Pipe()
        process.standardOutput = output
        let start = ContinuousClock.now
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - start
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        let daysCompleted =
            ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]).flatMap {
                ($0["report"] as? [String: Any])?["daysCompleted"] as? Int
            } ?? 0
        if process.terminationStatus != 0 || daysCompleted != days {
            report.fail("simulation: entool demo ended with \(process.terminationStatus) after \(daysCompleted) days")
        }
        let seconds = DetectionBenchmark.nanoseconds(elapsed) / 1e9
        let perDeviceDay = DetectionBenchmark.nanoseconds(elapsed) / Double(devices * days)
        func time(_ value: timeval) -> String {
            String(format: "%.1f", Double(value.tv_sec) + Double(value.tv_usec) / 1e6)
        }
        report.add(
            BenchmarkResult(
                suite: "simulation", name: "entool demo --devices \(devices) --days \(days)", unit: "device-day",
                best: perDeviceDay, median: perDeviceDay,
                details: [
                    "total_s": String(format: "%.1f", seconds), "user_s": time(usage.ru_utime),
                    "sys_s": time(usage.ru_stime),
                    // ru_maxrss: kilobytes on Linux; the largest child so far (this is the suite's only child).
                    "peakRSS_MB": String(format: "%.0f", Double(usage.ru_maxrss) / 1024),
                ]))
    }
}
