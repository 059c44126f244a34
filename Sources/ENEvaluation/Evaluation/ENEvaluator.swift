import Dispatch
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
        try evaluate(encounters, configurations: [configuration], request: request)[0]
    }

    /// Evaluates several configurations over the same encounters, in order; the work that does not depend on the
    /// configuration (the contact rule, key metadata, each placement's windows and their seconds by attenuation)
    /// is done once per encounter, and the configurations are evaluated on every processor. The results are those
    /// of ``evaluate(_:configuration:request:)`` for each configuration.
    ///
    /// - Throws: as ``evaluate(_:configuration:request:)``, for the first configuration and encounter that fail.
    public static func evaluate(
        _ encounters: [ENLabelledEncounter], configurations: [ENEvaluationConfiguration], request: ENEvaluationRequest
    ) throws(ENError) -> [Result] {
        var windows = ENScoringV2.PreparedWindows()
        let prepared = encounters.map { Prepared($0, request: request, windows: &windows) }
        let scored = windows
        // One configuration per iteration; each stores its outcome at its own index, so the order is the input's.
        let outcomes = Locked([Swift.Result<Result, ENError>?](repeating: nil, count: configurations.count))
        DispatchQueue.concurrentPerform(iterations: configurations.count) { index in
            let outcome = evaluate(prepared, windows: scored, configuration: configurations[index], request: request)
            outcomes.withLock { $0[index] = outcome }
        }
        var results: [Result] = []
        results.reserveCapacity(configurations.count)
        for outcome in outcomes.withLock({ $0 }) {
            switch outcome! {
            case .success(let result): results.append(result)
            case .failure(let error): throw error
            }
        }
        return results
    }

    /// One configuration over prepared encounters, stopping at the first encounter that fails.
    static func evaluate(
        _ encounters: [Prepared], windows: ENScoringV2.PreparedWindows, configuration: ENEvaluationConfiguration,
        request: ENEvaluationRequest
    ) -> Swift.Result<Result, ENError> {
        let parameters = ENScoringV2.Parameters(configuration.framework)
        var decisions: [ENEncounterDecision] = []
        decisions.reserveCapacity(encounters.count)
        if case .daySummary(let field, let threshold) = configuration.rule {
            // The rule read once; the encounters read field by field (copying one would count its references).
            let roundsUp = request.platform == .apple
            let refusesUndated = parameters.daysSinceLastExposureThreshold >= 1
            for index in encounters.indices {
                if let groups = encounters[index].scored,
                    !(refusesUndated && encounters[index].isHistogram && !encounters[index].daysKnown)
                {
                    decisions.append(
                        daySummaryDecision(
                            id: encounters[index].id, contact: encounters[index].contact, groups: groups,
                            windows: windows, field: field, threshold: threshold, parameters: parameters,
                            roundsUp: roundsUp))
                    continue
                }
                do {
                    decisions.append(
                        try decide(
                            encounters[index], windows: windows, configuration: configuration, parameters: parameters,
                            request: request))
                } catch {
                    return .failure(error)
                }
            }
            return .success(
                Result(name: configuration.name, decisions: decisions, metrics: ENEvaluationMetrics(decisions)))
        }
        for index in encounters.indices {
            do {
                decisions.append(
                    try decide(
                        encounters[index], windows: windows, configuration: configuration, parameters: parameters,
                        request: request))
            } catch {
                return .failure(error)
            }
        }
        return .success(
            Result(name: configuration.name, decisions: decisions, metrics: ENEvaluationMetrics(decisions)))
    }

    /// One encounter's decision: once for windows; three times for a histogram (lowest, highest, even spread),
    /// reporting the even spread and marking the encounter undetermined when the three disagree.
    public static func decide(
        _ encounter: ENLabelledEncounter, configuration: ENEvaluationConfiguration, request: ENEvaluationRequest
    ) throws(ENError) -> ENEncounterDecision {
        var windows = ENScoringV2.PreparedWindows()
        let prepared = Prepared(encounter, request: request, windows: &windows)
        return try decide(
            prepared, windows: windows, configuration: configuration,
            parameters: ENScoringV2.Parameters(configuration.framework), request: request)
    }

    /// What an encounter's decisions share under every configuration.
    struct Prepared {
        var id: String
        var contact: Bool
        var metadata: ENKeyMetadata
        /// Whether the windows' date comes from known days since exposure (histograms; windows carry dates).
        var daysKnown: Bool
        var isHistogram: Bool
        /// One entry per placement, the reported (even) one last.
        var placements: [[Window]]
        /// The same windows prepared for `ENScoringV2`, when every window has a report type and an
        /// infectiousness: one group of the evaluation's prepared windows per placement.
        var scored: Range<Int>?

        /// Prepares an encounter, adding its placements' windows to `windows` when they can be scored.
        init(_ encounter: ENLabelledEncounter, request: ENEvaluationRequest, windows: inout ENScoringV2.PreparedWindows)
        {
            id = encounter.id
            metadata = encounter.keyMetadata.filled(from: request.defaults)
            contact = request.contactRule.isContact(encounter.groundTruth)
            let order: [ENAttenuationHistogram.Placement]
            switch encounter.observation {
            case .attenuationHistogram(let histogram):
                order = histogram.isDeterminate ? [.even] : [.lowest, .highest, .even]
                isHistogram = true
            case .exposureWindows:
                order = [.even]
                isHistogram = false
            }
            daysKnown = !isHistogram || metadata.daysSinceExposure != nil
            let metadata = metadata
            placements = order.map {
                ENEvaluator.windows(encounter, metadata: metadata, placement: $0, now: request.now)
            }
            let converted = placements.compactMap(scoringWindows)
            if converted.count == placements.count {
                let first = windows.groupCount
                for group in converted { windows.append(group, now: request.now) }
                scored = first..<windows.groupCount
            } else {
                scored = nil
            }
        }
    }

    /// One encounter's decision under a configuration whose framework `parameters` were read from.
    static func decide(
        _ encounter: Prepared, windows: ENScoringV2.PreparedWindows, configuration: ENEvaluationConfiguration,
        parameters: ENScoringV2.Parameters, request: ENEvaluationRequest
    ) throws(ENError) -> ENEncounterDecision {
        if encounter.isHistogram, !encounter.daysKnown {
            let needsDays: Bool
            switch configuration.rule {
            case .daySummary: needsDays = configuration.framework.daysSinceLastExposureThreshold >= 1
            case .cwaExposureWindows(let parameters): needsDays = parameters.maxEncounterAgeInDays > 0
            default: needsDays = true
            }
            if needsDays { throw missing("daysSinceExposure", encounter.id, rule: configuration.rule) }
        }
        if case .daySummary(let field, let threshold) = configuration.rule, let groups = encounter.scored {
            return daySummaryDecision(
                id: encounter.id, contact: encounter.contact, groups: groups, windows: windows, field: field,
                threshold: threshold, parameters: parameters, roundsUp: request.platform == .apple)
        }
        var some = false
        var every = true
        var reported = (value: 0.0, notified: false)
        for index in encounter.placements.indices {
            let value = try self.value(
                encounter.placements[index], rule: configuration.rule, framework: configuration.framework,
                metadata: encounter.metadata, encounter: encounter.id, now: request.now, platform: request.platform)
            reported = (value, notifies(value, rule: configuration.rule))
            some = some || reported.notified
            every = every && reported.notified
        }
        return ENEncounterDecision(
            id: encounter.id, contact: encounter.contact, notified: reported.notified,
            determinate: every || !some, value: reported.value, notifiedInSomePlacement: some,
            notifiedInEveryPlacement: every)
    }

    /// A `daySummary` rule's decision from the encounter's prepared placements (`groups` of `windows`, the
    /// reported one last): each placement's value notifies when it is at least `threshold`.
    static func daySummaryDecision(
        id: String, contact: Bool, groups: Range<Int>, windows: ENScoringV2.PreparedWindows,
        field: ENNotificationRule.DaySummaryField, threshold: Double, parameters: ENScoringV2.Parameters,
        roundsUp: Bool
    ) -> ENEncounterDecision {
        var some = false
        var every = true
        var reported = (value: 0.0, notified: false)
        for group in groups {
            let value = daySummaryValue(
                windows, group: group, field: field, parameters: parameters, roundsUp: roundsUp)
            reported = (value, value >= threshold)
            some = some || reported.notified
            every = every && reported.notified
        }
        return ENEncounterDecision(
            id: id, contact: contact, notified: reported.notified, determinate: every || !some,
            value: reported.value, notifiedInSomePlacement: some, notifiedInEveryPlacement: every)
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

    /// An encounter's windows under a placement, with key metadata resolved; a histogram without days since
    /// exposure is dated "now" (rules that need the days refuse it in `decide`).
    static func windows(
        _ encounter: ENLabelledEncounter, metadata: ENKeyMetadata, placement: ENAttenuationHistogram.Placement,
        now: Date
    ) -> [Window] {
        switch encounter.observation {
        case .attenuationHistogram(let histogram):
            let days = metadata.daysSinceExposure ?? 0
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
            guard let scored = scoringWindows(windows) else {
                let incomplete = windows.first { $0.reportType == nil || $0.infectiousness == nil }
                throw missing(incomplete?.reportType == nil ? "reportType" : "infectiousness", encounter, rule: rule)
            }
            var prepared = ENScoringV2.PreparedWindows()
            let group = prepared.append(scored, now: now)
            return daySummaryValue(
                prepared, group: group, field: field, parameters: ENScoringV2.Parameters(framework),
                roundsUp: platform == .apple)
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

    /// The largest day's `field` of `ENScoringV2.daySummaries` (0 without a scored window): each day's total
    /// in date order, the largest kept as `max()` keeps it.
    static func daySummaryValue(
        _ windows: ENScoringV2.PreparedWindows, group: Int, field: ENNotificationRule.DaySummaryField,
        parameters: ENScoringV2.Parameters, roundsUp: Bool
    ) -> Double {
        var largest: Double?
        for day in windows.days(ofGroup: group) {
            guard let item = windows.dayTotal(day, parameters: parameters, roundsUp: roundsUp) else { continue }
            let value =
                switch field {
                case .scoreSum: item.scoreSum
                case .weightedDurationSum: item.weightedDurationSum
                case .maximumScore: item.maximumScore
                }
            if let current = largest {
                if current < value { largest = value }
            } else {
                largest = value
            }
        }
        return largest ?? 0
    }

    /// The windows `ENScoringV2` scores, with whole-second scans; nil when a window has no report type or no
    /// infectiousness.
    static func scoringWindows(_ windows: [Window]) -> [ENExposureWindow]? {
        var converted: [ENExposureWindow] = []
        converted.reserveCapacity(windows.count)
        for window in windows {
            guard let reportType = window.reportType, let infectiousness = window.infectiousness else { return nil }
            converted.append(
                ENExposureWindow(
                    calibrationConfidence: window.calibrationConfidence, date: window.date,
                    diagnosisReportType: reportType, infectiousness: infectiousness,
                    scanInstances: wholeSecondScans(window.scans)))
        }
        return converted
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
