import ENCore
import ENEvaluation
import Foundation

/// A configuration sweep: 1,000 V2 configurations held against 10,000 histogram encounters with `ENEvaluator`,
/// each configuration's threshold swept into a ROC curve, with peak memory.
///
/// The encounters are deterministic and shaped like the Dublin bus data (19 bins 48-50, ..., 78-80 at 2 dB, then
/// 80-85, 85-90, 90-100, whole minutes 0...6, distances 0.5-4 m); every bin wider than 1 dB makes each decision three
/// placements. The configurations vary the three thresholds and the three weights (scoreSum >= 15 minutes).
let evaluationBenchmarkSuite = BenchmarkSuite(name: "evaluation") { context, report in
    let encounterCount = context.quick ? 1_000 : 10_000
    let configurationCount = context.quick ? 100 : 1_000
    var generator = SplitMix64(seed: 0xE7A1)
    let edges = Array(stride(from: 48, through: 80, by: 2)) + [85, 90, 100]
    var encounters: [ENLabelledEncounter] = []
    encounters.reserveCapacity(encounterCount)
    for index in 0..<encounterCount {
        let bins = zip(edges, edges.dropFirst()).map { lo, hi in
            ENAttenuationHistogram.Bin(lo: lo, hi: hi, seconds: Double(generator.next() % 7) * 60)
        }
        encounters.append(
            ENLabelledEncounter(
                id: "e\(index)",
                groundTruth: ENGroundTruth(
                    distanceMeters: 0.5 + Double(generator.next() % 36) / 10,
                    durationSeconds: Double(5 + generator.next() % 40) * 60),
                keyMetadata: ENKeyMetadata(
                    transmissionRiskLevel: 1, reportType: .confirmedTest, infectiousness: .standard),
                observation: .attenuationHistogram(ENAttenuationHistogram(bins: bins))))
    }
    var configurations: [ENEvaluationConfiguration] = []
    configurations.reserveCapacity(configurationCount)
    for index in 0..<configurationCount {
        var framework = ENExposureConfiguration()
        let first = 48 + Int(generator.next() % 15)
        let second = first + 2 + Int(generator.next() % 12)
        let third = second + 2 + Int(generator.next() % 15)
        framework.attenuationDurationThresholds = [first, second, third]
        framework.immediateDurationWeight = Double(50 + generator.next() % 201)
        framework.nearDurationWeight = Double(generator.next() % 151)
        framework.mediumDurationWeight = Double(generator.next() % 101)
        framework.otherDurationWeight = 0
        configurations.append(
            ENEvaluationConfiguration(
                name: "c\(index)", source: "benchmark", framework: framework,
                rule: .daySummary(field: .scoreSum, notifyIfAtLeastSeconds: 900)))
    }
    let request = ENEvaluationRequest(now: Date(timeIntervalSince1970: 1_600_000_000))

    // Correctness gate: one encounter's value equals the package's V2 scoring by hand (all time at one weight).
    var flat = ENExposureConfiguration()
    flat.attenuationDurationThresholds = [200, 210, 220]
    let gate = try? ENEvaluator.decide(
        encounters[0],
        configuration: ENEvaluationConfiguration(
            name: "gate", source: "benchmark", framework: flat,
            rule: .daySummary(field: .scoreSum, notifyIfAtLeastSeconds: 900)),
        request: request)
    let gateTotal = roundedUpToMinute(histogramTotal(encounters[0]))
    if gate?.value != gateTotal {
        report.fail("evaluation: gate value \(String(describing: gate?.value)), expected \(gateTotal) s")
    }

    MatchingBenchmark.resetPeakResident()
    let clock = ContinuousClock()
    var notified = 0
    var aucSum = 0.0
    var failed = false
    // In chunks of 100 configurations, so that the decisions of only one chunk are held at a time.
    let elapsed = clock.measure {
        for chunk in stride(from: 0, to: configurations.count, by: 100) {
            let slice = Array(configurations[chunk..<min(chunk + 100, configurations.count)])
            guard let results = try? ENEvaluator.evaluate(encounters, configurations: slice, request: request) else {
                failed = true
                return
            }
            for result in results {
                notified += result.metrics.notified
                aucSum += ENThresholdSweep(result.decisions).areaUnderCurve ?? 0
            }
        }
    }
    if failed { report.fail("evaluation: a configuration failed to evaluate") }
    let peak = MatchingBenchmark.peakResidentBytes() ?? 0
    let nanoseconds = DetectionBenchmark.nanoseconds(elapsed)
    let decisions = Double(encounters.count * configurations.count)
    report.add(
        BenchmarkResult(
            suite: "evaluation",
            name: "\(configurations.count) configurations x \(encounters.count) histogram encounters, swept",
            unit: "decision", best: nanoseconds / decisions, median: nanoseconds / decisions,
            details: [
                "total_s": String(format: "%.2f", nanoseconds / 1e9),
                "peakRSS_MB": String(format: "%.0f", Double(peak) / 1_048_576),
                "meanNotified": String(format: "%.0f", Double(notified) / Double(configurations.count)),
                "meanAUC": String(format: "%.3f", aucSum / Double(configurations.count)),
            ]))
    if !context.quick, nanoseconds > 5e9 {
        context.log("evaluation: the sweep took \(String(format: "%.1f", nanoseconds / 1e9)) s (target 5 s)")
    }
}

/// The histogram's total seconds (the gate's expected value before rounding).
private func histogramTotal(_ encounter: ENLabelledEncounter) -> Double {
    guard case .attenuationHistogram(let histogram) = encounter.observation else { return -1 }
    return histogram.totalSeconds
}

/// Apple rounds a day value up to the minute.
private func roundedUpToMinute(_ seconds: Double) -> Double { (seconds / 60).rounded(.up) * 60 }
