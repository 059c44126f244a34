import ENCore
import ENRiskV1
import ENRiskV2
import Foundation

/// Version 2 scoring for a device with a year's worth of encounters, and version 1 scoring of the same keys.
///
/// The data set is deterministic: 365 days, 24 encountered keys a day, each seen for 5 to 60 minutes with a
/// sighting per minute and attenuations of 35 to 95 dB, so 1 or 2 windows per key (about 12,000 windows in all).
let riskBenchmarkSuite = BenchmarkSuite(name: "risk") { context, report in
    let days = context.quick ? 30 : 365
    let keysPerDay = 24
    var configuration = ENExposureConfiguration()
    for day in -14...14 {
        configuration.infectiousnessByDaysSinceOnsetOfSymptoms[day] = day.isMultiple(of: 3) ? .high : .standard
    }
    configuration.infectiousnessByDaysSinceOnsetOfSymptoms[ENDaysSinceOnsetOfSymptomsUnknown] = .standard
    configuration.immediateDurationWeight = 150
    configuration.mediumDurationWeight = 50
    configuration.otherDurationWeight = 0
    configuration.infectiousnessHighWeight = 200

    // Correctness gate: Apple's documented example (22.5 weighted minutes, high infectiousness at 200 %).
    let example = ENExposureWindow(
        date: Date(timeIntervalSince1970: 0), diagnosisReportType: .confirmedTest, infectiousness: .high,
        scanInstances: [(45, 300), (60, 600), (80, 600), (100, 300)].map {
            ENScanInstance(minimumAttenuation: $0.0, typicalAttenuation: $0.0, secondsSinceLastScan: $0.1)
        })
    let exampleScore = ENScoringV2.score(of: example, configuration: configuration, now: Date(timeIntervalSince1970: 0))
    if exampleScore?.score != 2700 {
        report.fail("risk: Apple's example scored \(String(describing: exampleScore?.score)), not 2700 s")
    }

    var generator = SplitMix64(seed: 0x5EED)
    let start = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01
    var matches: [ENKeyMatch] = []
    matches.reserveCapacity(days * keysPerDay)
    for day in 0..<days {
        for index in 0..<keysPerDay {
            let keyStart = ENIntervalNumber(date: start + Double(day) * 86_400)
            let key = ENTemporaryExposureKey(
                keyData: Data(repeating: UInt8(truncatingIfNeeded: index), count: 16), rollingStartNumber: keyStart,
                transmissionRiskLevel: UInt8(generator.next() % 8),
                diagnosisReportType: ENDiagnosisReportType(rawValue: UInt32(1 + generator.next() % 4))!,
                daysSinceOnsetOfSymptoms: Int(generator.next() % 29) - 14)
            let first = start + Double(day) * 86_400 + Double(generator.next() % 80_000)
            let minutes = 5 + Int(generator.next() % 56)
            let sightings = (0..<minutes).map { minute in
                ENMatchedSighting(
                    sighting: ENSighting(
                        rpi: RollingProximityIdentifier(lowWord: UInt64(index), highWord: UInt64(day)),
                        aem: AssociatedEncryptedMetadata(rawValue: 0), timestamp: first + Double(minute * 60),
                        rssi: Int8(-35 - Int(generator.next() % 61))),
                    derivedInterval: keyStart, txPower: 0)
            }
            matches.append(ENKeyMatch(key: key, sightings: sightings))
        }
    }
    let now = start + Double(days) * 86_400
    let windows = ENScoringV2.exposureWindows(from: matches, configuration: configuration)
    let summaries = ENScoringV2.daySummaries(for: windows, configuration: configuration, now: now)
    if summaries.count != days { report.fail("risk: \(summaries.count) day summaries for \(days) days") }
    let details = ["windows": String(windows.count), "days": String(days), "keys": String(matches.count)]

    let scoring = measure(iterations: context.iterations, operations: windows.count) {
        blackHole(ENScoringV2.daySummaries(for: windows, configuration: configuration, now: now))
    }
    report.add(
        BenchmarkResult(
            suite: "risk", name: "V2 day summaries from windows", unit: "window", best: scoring.best,
            median: scoring.median, details: details))

    let building = measure(iterations: context.iterations, operations: windows.count) {
        blackHole(ENScoringV2.exposureWindows(from: matches, configuration: configuration))
    }
    report.add(
        BenchmarkResult(
            suite: "risk", name: "V2 windows from matched sightings", unit: "window", best: building.best,
            median: building.median, details: details))

    let v1 = measure(iterations: context.iterations, operations: matches.count) {
        blackHole(ENScoringV1.evaluate(matches: matches, configuration: configuration, now: now))
    }
    report.add(
        BenchmarkResult(
            suite: "risk", name: "V1 exposure infos and summary from matched sightings", unit: "key", best: v1.best,
            median: v1.median, details: details))
}
