import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENStore
import Foundation

/// The key server: exporting 1,000,000 waiting keys (100,000 quick) into signed files as Google's server writes
/// them (`ENKeyServerExporter.publish()` on an SQLite file store: read the keys, sort, split at 500,000, encode, sign,
/// zip, record the files), with its wall time, process CPU time and peak memory. Storing the keys (through the
/// storage, 10,000 a transaction: the publish rules take at most 30 keys a request) is not measured.
let keyServerBenchmarkSuite = BenchmarkSuite(name: "keyserver") { context, report in
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "KeyServerBenchmarks-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let count = context.quick ? 100_000 : 1_000_000
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    let today = ENIntervalNumber(date: now).rollingStart
    var generator = SplitMix64(seed: 20)
    let keys = (0..<count).map { i in
        ENTemporaryExposureKey(
            keyData: withUnsafeBytes(of: (generator.next(), generator.next())) { Data($0) },
            rollingStartNumber: today.adding(-144 * (1 + i % 14)), transmissionRiskLevel: UInt8(i % 8),
            diagnosisReportType: .confirmedTest, daysSinceOnsetOfSymptoms: i % 3 == 0 ? 0 : -(i % 14))
    }
    let signer = ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v1")
    var walls: [Double] = []
    var cpus: [Double] = []
    var peak = 0
    for sample in 0..<max(1, context.iterations) {
        let store = try ENKeyServerSQLiteStore(path: directory.appendingPathComponent("keys-\(sample).sqlite").path) {
            now
        }
        let exporter = ENKeyServerExporter(
            storage: store, configuration: ENKeyServerConfiguration(region: "310", signers: [signer]), clock: { now })
        for start in stride(from: 0, to: count, by: 10_000) {
            let insertions = keys[start..<min(start + 10_000, count)].map {
                ENKeyServerInsertion(key: $0, exportableAt: now)
            }
            _ = try DetectionBenchmark.wait { try await store.insertAndRevise(inserting: insertions, revising: []) }
        }
        context.log("keyserver: exporting \(count) keys, sample \(sample + 1)")
        MatchingBenchmark.resetPeakResident()
        let cpu = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
        let start = ContinuousClock.now
        let files = try DetectionBenchmark.wait { try await exporter.publish() }
        let elapsed = ContinuousClock.now - start
        cpus.append(cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - cpu)
        walls.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        peak = max(peak, MatchingBenchmark.peakResidentBytes() ?? 0)
        if files.count != (count + 499_999) / 500_000 {
            report.fail("keyserver: \(files.count) files for \(count) keys")
        }
        try store.close()
    }
    walls.sort()
    cpus.sort()
    report.add(
        BenchmarkResult(
            suite: "keyserver", name: "export \(count) keys into signed files (publish)", unit: "key",
            best: walls[0] * 1e9 / Double(count), median: walls[walls.count / 2] * 1e9 / Double(count),
            details: [
                "keys": "\(count)", "wall s (median)": String(format: "%.2f", walls[walls.count / 2]),
                "CPU s (median)": String(format: "%.2f", cpus[cpus.count / 2]),
                "peak RSS MB": "\(peak / 1_000_000)",
            ]))
}
