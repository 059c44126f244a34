import ENSimulator
import Foundation

/// A whole town through ENSimulator: 1,000 devices over 14 days (three encounters a day per device, one in fifty
/// positive), every device detecting daily on the key server's new files, stores in memory; one row with the
/// wall time per simulated device-day and the peak memory. Target: the whole run under 60 s. Gated: someone
/// must be notified and every device must have detected every day. Then ``DemoBenchmark``: the same through
/// `entool demo`, as a user runs it.
let simulationBenchmarkSuite = BenchmarkSuite(name: "simulation") { context, report in
    let (devices, days) = context.quick ? (50, 3) : (1_000, 14)
    let scenario = ENScenario.randomTown(devices: devices, days: days, seed: 1)
    context.log("simulation: \(devices) devices over \(days) days")
    MatchingBenchmark.resetPeakResident()
    var result: ENSimulationReport?
    let elapsed = try ContinuousClock().measure {
        result = try DetectionBenchmark.wait { try await ENSimulation(scenario: scenario).run() }
    }
    let peak = MatchingBenchmark.peakResidentBytes() ?? 0
    let outcome = result!
    if outcome.devices.contains(where: { $0.detections != days }) {
        report.fail("simulation: a device missed a daily detection")
    }
    if outcome.notifiedDevices.isEmpty { report.fail("simulation: nobody was notified") }
    let perDeviceDay = DetectionBenchmark.nanoseconds(elapsed) / Double(devices * days)
    report.add(
        BenchmarkResult(
            suite: "simulation", name: "\(devices) devices x \(days) days, daily detection", unit: "device-day",
            best: perDeviceDay, median: perDeviceDay,
            details: [
                "total_s": String(format: "%.1f", DetectionBenchmark.nanoseconds(elapsed) / 1e9),
                "peakRSS_MB": String(format: "%.0f", Double(peak) / 1_048_576),
                "notified": "\(outcome.notifiedDevices.count)", "files": "\(outcome.filesPublished)",
            ]))
    try DemoBenchmark.run(context, &report)
}
