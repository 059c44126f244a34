public import ENCore
public import Foundation

/// Version 2 risk scoring: exposure windows from matched sightings, and day summaries from windows.
///
/// Everything here is pure and synchronous; "now" is always a parameter.
///
/// ```swift
/// let windows = ENScoringV2.exposureWindows(from: matches, configuration: configuration)
/// let days = ENScoringV2.daySummaries(for: windows, configuration: configuration, now: now)
/// ```
public enum ENScoringV2 {
    /// Builds the exposure windows of matched keys, in key order and then time order.
    ///
    /// Per key: the sightings become scans (see `ENSightingScan`); a scan at or after 1800 seconds past
    /// the current window's first scan starts a new window (Apple and Google agree). The window's date is the UTC
    /// day of its first scan. Its report type is the key's after
    /// `ENExposureConfiguration.reportTypeNoneMap`; its infectiousness comes from the key's days since
    /// onset of symptoms through the configuration's map.
    ///
    /// Keys whose report type is revoked never match and give no window. Windows that scoring would skip
    /// (infectiousness none, or a report type still unknown after mapping) are not returned either: Apple's
    /// framework never returns infectiousness none through its API. Recursive keys are kept and weighted with
    /// `ENExposureConfiguration.reportTypeRecursiveWeight` (iOS matches them only where the region
    /// enables it; that choice belongs to the caller's key selection).
    public static func exposureWindows(
        from matches: [ENKeyMatch], configuration: ENExposureConfiguration
    ) -> [ENExposureWindow] {
        var windows: [ENExposureWindow] = []
        for match in matches {
            windows.append(contentsOf: exposureWindows(from: match, configuration: configuration))
        }
        return windows
    }

    /// Builds the exposure windows of one matched key, by the rules of the form that takes an array of matches.
    public static func exposureWindows(
        from match: ENKeyMatch, configuration: ENExposureConfiguration
    ) -> [ENExposureWindow] {
        let key = match.key
        guard key.diagnosisReportType != .revoked else { return [] }
        let reportType = configuration.mappedReportType(key.diagnosisReportType)
        let infectiousness = configuration.infectiousness(forDaysSinceOnsetOfSymptoms: key.daysSinceOnsetOfSymptoms)
        guard reportType != .unknown, infectiousness != .none else { return [] }

        var windows: [ENExposureWindow] = []
        var current: [ENSightingScan] = []
        func close() {
            guard let first = current.first else { return }
            windows.append(
                ENExposureWindow(
                    calibrationConfidence: current.map(\.calibrationConfidence).min() ?? first.calibrationConfidence,
                    date: utcDay(of: first.timestamp), diagnosisReportType: reportType,
                    infectiousness: infectiousness, scanInstances: current.map(ENScanInstance.init),
                    variantOfConcernType: key.variantOfConcern))
            current = []
        }
        for scan in match.scans {
            if let first = current.first,
                scan.timestamp.timeIntervalSince(first.timestamp) >= ENExposureWindow.maximumDuration
            {
                close()
            }
            current.append(scan)
        }
        close()
        return windows
    }

    /// The attenuation-weighted duration of a window, in seconds:
    /// Σ over attenuation buckets of (seconds in the bucket × bucket weight / 100), bucketing each scan by its
    /// typical attenuation with inclusive upper thresholds. Negative seconds count as 0.
    ///
    /// The order of operations is Apple's (seconds are summed per bucket before the weight is applied).
    public static func weightedDuration(of window: ENExposureWindow, configuration: ENExposureConfiguration) -> Double {
        let parameters = Parameters(configuration)
        return parameters.weightedDuration(
            BucketSeconds(window.scanInstances, thresholds: parameters.thresholds))
    }

    /// Scores one window, or returns nil when the window is skipped.
    ///
    /// Apple's order of filters:
    /// 1. `ENExposureConfiguration.daysSinceLastExposureThreshold`: when it is at least 1, a window whose
    ///    date is more than that many whole days before `now` is skipped;
    /// 2. a window with infectiousness none, or whose report type is unknown after
    ///    `ENExposureConfiguration.reportTypeNoneMap`, is skipped entirely (its weighted duration does not
    ///    count either);
    /// 3. score = weighted duration × report-type weight / 100 × infectiousness weight / 100; the window is
    ///    skipped when the score clamped to 0...255 is below `ENExposureConfiguration.minimumRiskScore`
    ///    or the score is below `ENExposureConfiguration.minimumRiskScoreFullRange`.
    ///
    /// Google applies the same filters with its own names (`daysSinceExposureThreshold`, `minimumWindowScore`).
    public static func score(
        of window: ENExposureWindow, configuration: ENExposureConfiguration, now: Date
    ) -> ENScoringV2.WindowScore? {
        score(of: window, parameters: Parameters(configuration), now: now)
    }

    /// Scores one window under a configuration's values read once (see ``score(of:configuration:now:)``).
    static func score(of window: ENExposureWindow, parameters: Parameters, now: Date) -> ENScoringV2.WindowScore? {
        guard parameters.admits(wholeDaysBeforeNow: UTCDay.wholeDays(from: window.date, to: now)),
            let reportType = parameters.scoredReportType(
                window.diagnosisReportType, infectiousness: window.infectiousness)
        else { return nil }
        return parameters.score(
            BucketSeconds(window.scanInstances, thresholds: parameters.thresholds),
            reportType: reportType,
            infectiousness: window.infectiousness)
    }

    /// Sums scored windows into one summary per UTC day, in date order.
    ///
    /// Per day and report type: the highest score, the score sum and the weighted-duration sum; the day item takes
    /// the highest score of all types and the sums of all types. Every value is then rounded up to a whole minute
    /// (Apple). Days without a scored window are absent, and so are the per-type items of types without one.
    ///
    /// With `platform` `.android` the values are not rounded (Google's `DailySummaryUtils` keeps the doubles); the
    /// windows are scored the same way on both platforms.
    public static func daySummaries(
        for windows: [ENExposureWindow], configuration: ENExposureConfiguration, now: Date,
        platform: ENScoringPlatform = .apple
    ) -> [ENExposureDaySummary] {
        // Few days per call: a sorted array with a linear search allocates less than a dictionary.
        var days: [(day: Int64, sums: DayAccumulator)] = []
        let parameters = Parameters(configuration)
        for window in windows {
            guard let score = score(of: window, parameters: parameters, now: now) else { continue }
            let day = UTCDay.number(of: window.date)
            if let index = days.firstIndex(where: { $0.day == day }) {
                days[index].sums.add(score)
            } else {
                var sums = DayAccumulator()
                sums.add(score)
                let index = days.firstIndex { $0.day > day } ?? days.endIndex
                days.insert((day, sums), at: index)
            }
        }
        return days.map { entry in
            entry.sums.summary(
                date: Date(timeIntervalSince1970: Double(entry.day) * UTCDay.seconds), roundsUp: platform == .apple)
        }
    }

    /// The UTC midnight that starts the day of `date`.
    public static func utcDay(of date: Date) -> Date {
        UTCDay.start(of: date)
    }
}

/// Running sums for one day.
private struct DayAccumulator {
    var total = ENScoringV2.ItemAccumulator()
    var confirmedTest: ENScoringV2.ItemAccumulator?
    var confirmedClinicalDiagnosis: ENScoringV2.ItemAccumulator?
    var selfReported: ENScoringV2.ItemAccumulator?
    var recursive: ENScoringV2.ItemAccumulator?

    mutating func add(_ score: ENScoringV2.WindowScore) {
        total.add(score)
        switch score.reportType {
        case .confirmedTest: confirmedTest = Self.adding(score, to: confirmedTest)
        case .confirmedClinicalDiagnosis:
            confirmedClinicalDiagnosis = Self.adding(score, to: confirmedClinicalDiagnosis)
        case .selfReported: selfReported = Self.adding(score, to: selfReported)
        case .recursive: recursive = Self.adding(score, to: recursive)
        case .unknown, .revoked: break  // scoring skips these windows
        }
    }

    /// The item with the score added, made on first use.
    static func adding(_ score: ENScoringV2.WindowScore, to item: ENScoringV2.ItemAccumulator?)
        -> ENScoringV2.ItemAccumulator
    {
        var sums = item ?? ENScoringV2.ItemAccumulator()
        sums.add(score)
        return sums
    }

    func summary(date: Date, roundsUp: Bool) -> ENExposureDaySummary {
        ENExposureDaySummary(
            date: date, daySummary: total.item(roundsUp), confirmedTestSummary: confirmedTest?.item(roundsUp),
            confirmedClinicalDiagnosisSummary: confirmedClinicalDiagnosis?.item(roundsUp),
            recursiveSummary: recursive?.item(roundsUp), selfReportedSummary: selfReported?.item(roundsUp))
    }
}
