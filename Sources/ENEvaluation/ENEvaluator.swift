public import ENCore
import ENRiskV1
import ENRiskV2
import Foundation

/// Scores labelled encounters with the package's own V1/V2 scoring, applies each configuration's app rule and
/// counts the results. Pure: no I/O, no clock.
///
/// ```swift
/// let set = try ENLabelledEncounterSet(jsonData: data)
/// let configuration = try ENEvaluationConfiguration(jsonData: configData)
/// let result = try ENEvaluator.evaluate(set.encounters, configuration: configuration, request: request)
/// print(result.metrics.truePositiveRate ?? .nan)
/// ```
public enum ENEvaluator {
    /// The decisions and metrics of one configuration.
    public struct Result: Hashable, Sendable {
        /// The configuration's name.
        public var name: String
        /// One decision per encounter, in input order.
        public var decisions: [ENEncounterDecision]
        /// The counts and rates.
        public var metrics: ENEvaluationMetrics
    }

    /// Evaluates one configuration over encounters.
    ///
    /// - Throws: `ENError.Code.badParameter` naming the encounter (section `encounter <id>`) and the key
    ///   metadata field a rule needs when neither the encounter nor the request gives it.
    public static func evaluate(
        _ encounters: [ENLabelledEncounter], configuration: ENEvaluationConfiguration, request: ENEvaluationRequest
    ) throws(ENError) -> Result {
        var decisions: [ENEncounterDecision] = []
        decisions.reserveCapacity(encounters.count)
        for encounter in encounters {
            decisions.append(try decide(encounter, configuration: configuration, request: request))
        }
        return Result(name: configuration.name, decisions: decisions, metrics: ENEvaluationMetrics(decisions))
    }

    /// One encounter's decision: once for windows; three times for a histogram (lowest, highest, even spread),
    /// reporting the even spread and marking the encounter undetermined when the three disagree.
    public static func decide(
        _ encounter: ENLabelledEncounter, configuration: ENEvaluationConfiguration, request: ENEvaluationRequest
    ) throws(ENError) -> ENEncounterDecision {
        let metadata = encounter.keyMetadata.filled(from: request.defaults)
        let contact = request.contactRule.isContact(encounter.groundTruth)
        let placements: [ENAttenuationHistogram.Placement]
        switch encounter.observation {
        case .attenuationHistogram(let histogram):
            placements = histogram.isDeterminate ? [.even] : [.lowest, .highest, .even]
        case .exposureWindows: placements = [.even]
        }
        var outcomes: [(value: Double, notified: Bool)] = []
        for placement in placements {
            let windows = try resolvedWindows(
                encounter, metadata: metadata, placement: placement, configuration: configuration, now: request.now)
            let value = try self.value(
                windows, rule: configuration.rule, framework: configuration.framework, metadata: metadata,
                encounter: encounter.id, now: request.now, platform: request.platform)
            outcomes.append((value, notifies(value, rule: configuration.rule)))
        }
        let reported = outcomes[outcomes.count - 1]
        return ENEncounterDecision(
            id: encounter.id, contact: contact, notified: reported.notified,
            determinate: outcomes.allSatisfy { $0.notified == reported.notified }, value: reported.value,
            notifiedInSomePlacement: outcomes.contains { $0.notified },
            notifiedInEveryPlacement: outcomes.allSatisfy { $0.notified })
    }

    /// Whether a value notifies under a rule: at least the threshold (for Corona-Warn-App's exposure windows, the
    /// day's normalized time maps to HIGH).
    public static func notifies(_ value: Double, rule: ENNotificationRule) -> Bool {
        switch rule {
        case .cwaExposureWindows(let parameters):
            CWARiskCalculation.level(value, parameters.normalizedTimePerDayToRiskLevel) == 2
        default: value >= rule.threshold
        }
    }

    // MARK: Scoring input

    /// A scan with fractional seconds (a histogram's even spread can split a minute).
    struct Scan {
        var minimum: ENAttenuation
        var typical: ENAttenuation
        var seconds: Double
    }

    /// A window with its key metadata resolved.
    struct Window {
        var date: Date
        var reportType: ENDiagnosisReportType?
        var infectiousness: ENInfectiousness?
        var calibrationConfidence: ENCalibrationConfidence
        var scans: [Scan]
    }

    static func missing(_ field: String, _ encounter: String, rule: ENNotificationRule) -> ENError {
        .badParameter(
            "the \(rule.name) rule needs \(field); give it in the encounter or in the request",
            context: ENError.Context(section: "encounter \(encounter)", field: "keyMetadata.\(field)"))
    }

    static func resolvedWindows(
        _ encounter: ENLabelledEncounter, metadata: ENKeyMetadata, placement: ENAttenuationHistogram.Placement,
        configuration: ENEvaluationConfiguration, now: Date
    ) throws(ENError) -> [Window] {
        switch encounter.observation {
        case .attenuationHistogram(let histogram):
            let needsDays: Bool
            switch configuration.rule {
            case .daySummary: needsDays = configuration.framework.daysSinceLastExposureThreshold >= 1
            case .cwaExposureWindows(let parameters): needsDays = parameters.maxEncounterAgeInDays > 0
            default: needsDays = true
            }
            guard let days = metadata.daysSinceExposure ?? (needsDays ? nil : 0) else {
                throw missing("daysSinceExposure", encounter.id, rule: configuration.rule)
            }
            let date = UTCDay.start(of: now).addingTimeInterval(-Double(days) * UTCDay.seconds)
            let scans = histogram.segments(placement).map {
                Scan(minimum: $0.attenuation, typical: $0.attenuation, seconds: $0.seconds)
            }
            return [
                Window(
                    date: date, reportType: metadata.reportType, infectiousness: metadata.infectiousness,
                    calibrationConfidence: .high, scans: scans)
            ]
        case .exposureWindows(let windows):
            return windows.map { window in
                Window(
                    date: window.date, reportType: window.reportType ?? metadata.reportType,
                    infectiousness: window.infectiousness ?? metadata.infectiousness,
                    calibrationConfidence: window.calibrationConfidence,
                    scans: window.scanInstances.map {
                        Scan(
                            minimum: $0.minimumAttenuation, typical: $0.typicalAttenuation,
                            seconds: Double(max(0, $0.secondsSinceLastScan)))
                    })
            }
        }
    }

    // MARK: Rules

    static func value(
        _ windows: [Window], rule: ENNotificationRule, framework: ENExposureConfiguration, metadata: ENKeyMetadata,
        encounter: String, now: Date, platform: ENScoringPlatform
    ) throws(ENError) -> Double {
        switch rule {
        case .daySummary(let field, _):
            var scored: [ENExposureWindow] = []
            for window in windows {
                guard let reportType = window.reportType else { throw missing("reportType", encounter, rule: rule) }
                guard let infectiousness = window.infectiousness else {
                    throw missing("infectiousness", encounter, rule: rule)
                }
                scored.append(
                    ENExposureWindow(
                        calibrationConfidence: window.calibrationConfidence, date: window.date,
                        diagnosisReportType: reportType, infectiousness: infectiousness,
                        scanInstances: wholeSecondScans(window.scans)))
            }
            let days = ENScoringV2.daySummaries(for: scored, configuration: framework, now: now, platform: platform)
            return days.map { day in
                switch field {
                case .scoreSum: day.daySummary.scoreSum
                case .weightedDurationSum: day.daySummary.weightedDurationSum
                case .maximumScore: day.daySummary.maximumScore
                }
            }.max() ?? 0
        case .maximumRiskScore, .weightedAttenuationDurations, .cwaV1:
            guard let level = metadata.transmissionRiskLevel else {
                throw missing("transmissionRiskLevel", encounter, rule: rule)
            }
            let exposures = version1Exposures(windows, transmissionRiskLevel: level, metadata: metadata)
            return version1Value(exposures, rule: rule, framework: framework, now: now, platform: platform)
        case .cwaExposureWindows(let parameters):
            return try CWARiskCalculation.maximumDayNormalizedTime(
                windows, parameters: parameters, encounter: encounter, rule: rule, now: now, platform: platform)
        }
    }

    /// Scan instances with whole seconds: each scan's seconds rounded, the rounding error carried to the next scan
    /// so the window's total stays exact (a histogram's even spread of whole minutes over 2, 5 or 10 values is
    /// already whole).
    static func wholeSecondScans(_ scans: [Scan]) -> [ENScanInstance] {
        var carried = 0.0
        return scans.map { scan in
            let exact = scan.seconds + carried
            let whole = exact.rounded()
            carried = exact - whole
            return ENScanInstance(
                minimumAttenuation: scan.minimum, typicalAttenuation: scan.typical, secondsSinceLastScan: Int(whole))
        }
    }

    /// One V1 exposure per UTC day (one key per day), each scan a segment at its typical attenuation.
    static func version1Exposures(
        _ windows: [Window], transmissionRiskLevel: ENRiskLevel, metadata: ENKeyMetadata
    ) -> [ENScoringV1.Exposure] {
        var byDay: [Int64: [ENScoringV1.AttenuationSegment]] = [:]
        for window in windows {
            byDay[UTCDay.number(of: window.date), default: []].append(
                contentsOf: window.scans.map { .init(attenuation: $0.typical, duration: $0.seconds) })
        }
        return byDay.keys.sorted().map { day in
            ENScoringV1.Exposure(
                date: Date(timeIntervalSince1970: Double(day) * UTCDay.seconds),
                transmissionRiskLevel: transmissionRiskLevel, attenuationSegments: byDay[day]!,
                diagnosisReportType: metadata.reportType ?? .unknown)
        }
    }

    /// The V1 rules' values. Android (Google's `ExposureSummary`): `maximumRiskScore` is the uncapped score
    /// (the summary's full-range maximum there), and the durations are unrounded minutes capped at 30.
    static func version1Value(
        _ exposures: [ENScoringV1.Exposure], rule: ENNotificationRule, framework: ENExposureConfiguration, now: Date,
        platform: ENScoringPlatform
    ) -> Double {
        switch rule {
        case .maximumRiskScore:
            let summary = ENScoringV1.evaluate(exposures, configuration: framework, now: now, platform: platform)
                .summary
            return platform == .apple ? Double(summary.maximumRiskScore) : summary.maximumRiskScoreFullRange
        case .weightedAttenuationDurations(let weights, _):
            return exposures.map { exposure in
                let durations = ENScoringV1.evaluate([exposure], configuration: framework, now: now, platform: platform)
                    .summary.attenuationDurations
                return zip(durations, weights).reduce(0.0) { $0 + $1.0 / 60 * $1.1 }
            }.max() ?? 0
        case .cwaV1(let weights, let divisor, let offset, _):
            // Apple: the iOS app's maximumRiskScoreFullRange; Android: the app's maximumRiskScore, uncapped there.
            let summary = ENScoringV1.evaluate(exposures, configuration: framework, now: now, platform: platform)
                .summary
            let minutes = zip(summary.attenuationDurations, weights).reduce(0.0) { $0 + min($1.0 / 60, 30) * $1.1 }
            let risk = summary.maximumRiskScoreFullRange / divisor * (minutes + offset)
            return (risk * 100).rounded(.toNearestOrAwayFromZero) / 100
        case .daySummary, .cwaExposureWindows:
            return 0
        }
    }
}
