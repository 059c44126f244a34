public import ENCore
public import Foundation

/// Version 1 risk scoring: ``ENExposureInfo`` per exposure and the ``ENScoringV1/Summary``.
///
/// Everything here is pure and synchronous; "now" is always a parameter. The configuration is expected to
/// have passed `ENExposureConfiguration.validate()`; a level table of the wrong length scores its
/// missing entries as 1 rather than failing.
///
/// ```swift
/// let exposures = matches.compactMap(ENScoringV1.Exposure.init(match:))
/// let result = ENScoringV1.evaluate(exposures, configuration: configuration, now: now)
/// print(result.summary.maximumRiskScore, result.exposureInfo.count)
/// ```
public enum ENScoringV1 {
    /// Scores exposures and builds the summary.
    ///
    /// An exposure whose ``ENExposureInfo/totalRiskScore`` is below
    /// `ENExposureConfiguration.minimumRiskScore`, or whose full-range score is below
    /// `ENExposureConfiguration.minimumRiskScoreFullRange`, is left out of the infos, the maximum, the sum
    /// and the attenuation durations, but still counts in ``ENScoringV1/Summary/matchedKeyCount`` and
    /// ``ENScoringV1/Summary/daysSinceLastExposure`` (Apple).
    ///
    /// With `platform` `.android` (Google's `KeyExposureEvaluator`), an exposure whose score is below
    /// `ENExposureConfiguration.minimumRiskScore` stays, with score 0, its durations counted;
    /// `ENExposureConfiguration.minimumRiskScoreFullRange` is Apple's and not applied; the summary's
    /// durations are the unrounded sums capped at 1800 seconds, and ``ENScoringV1/Summary/maximumRiskScoreFullRange``
    /// is Google's uncapped maximum score (``ENScoringV1/Summary/maximumRiskScore`` its clamp to 255).
    public static func evaluate(
        _ exposures: [ENScoringV1.Exposure], configuration: ENExposureConfiguration, now: Date,
        platform: ENScoringPlatform = .apple
    ) -> ENScoringV1.Result {
        var infos: [ENExposureInfo] = []
        var maximum: ENRiskScore = 0
        var maximumFullRange = 0.0
        var sumFullRange = 0.0
        let bucketCount = attenuationDurationCount(configuration, platform: platform)
        var durations = [TimeInterval](repeating: 0, count: bucketCount)
        var latest: Date?
        for exposure in exposures {
            latest = max(latest ?? exposure.date, exposure.date)
            var info = exposureInfo(for: exposure, configuration: configuration, now: now, platform: platform)
            switch platform {
            case .apple:
                guard info.totalRiskScore >= configuration.minimumRiskScore,
                    info.totalRiskScoreFullRange >= configuration.minimumRiskScoreFullRange
                else { continue }
            case .android:
                if info.totalRiskScoreFullRange < Double(configuration.minimumRiskScore) {
                    info.totalRiskScore = 0
                    info.totalRiskScoreFullRange = 0
                }
            }
            infos.append(info)
            maximum = max(maximum, info.totalRiskScore)
            maximumFullRange = max(maximumFullRange, info.totalRiskScoreFullRange)
            sumFullRange += info.totalRiskScoreFullRange
            let raw = rawAttenuationDurations(
                exposure.attenuationSegments, configuration: configuration, platform: platform)
            for index in 0..<bucketCount { durations[index] += raw[index] }
        }
        let summary = ENScoringV1.Summary(
            matchedKeyCount: UInt64(exposures.count),
            daysSinceLastExposure: latest.map { UTCDay.wholeDays(from: $0, to: now) } ?? 0,
            maximumRiskScore: maximum,
            maximumRiskScoreFullRange: maximumFullRange,
            riskScoreSumFullRange: sumFullRange,
            attenuationDurations: durations.map { reportedDuration($0, platform: platform) })
        return ENScoringV1.Result(summary: summary, exposureInfo: infos)
    }

    /// Scores matched keys: ``ENScoringV1/Exposure/init(match:)`` for each, then
    /// ``evaluate(_:configuration:now:platform:)``.
    public static func evaluate(
        matches: [ENKeyMatch], configuration: ENExposureConfiguration, now: Date,
        platform: ENScoringPlatform = .apple
    ) -> ENScoringV1.Result {
        evaluate(
            matches.compactMap(ENScoringV1.Exposure.init(match:)), configuration: configuration, now: now,
            platform: platform)
    }

    /// The info of one exposure, before the minimum-score filters.
    ///
    /// - days = whole days from the exposure's date to `now` (0 when the date is later);
    /// - full range = attenuationValue × attenuationWeight × days level × daysWeight × duration level ×
    ///   durationWeight × transmission level × transmissionRiskWeight, where the duration level uses the
    ///   unrounded duration in minutes as a double (so 301 s is above 5 minutes; Google floors the minutes);
    /// - total = the full range clamped to 0...255 and truncated.
    ///
    /// With `platform` `.android`, Google's `RiskScoreCalculator`: the attenuation value is the time-weighted
    /// mean in dB (``androidAttenuationValue(_:)``) and its level value is
    /// `attenuationLevelValues[attenuationBucket(mean)]`; the duration is rounded to the nearest 5 minutes
    /// (``androidDuration(_:)``) and bucketed in whole minutes; transmission risk level 0 scores 1 and level n
    /// scores `transmissionRiskLevelValues[n - 1]`; the weights are not used; the full range is the product of
    /// the four level values, uncapped (0...4096 with Google's 0...8 values), and the total its clamp to 255.
    public static func exposureInfo(
        for exposure: ENScoringV1.Exposure, configuration: ENExposureConfiguration, now: Date,
        platform: ENScoringPlatform = .apple
    ) -> ENExposureInfo {
        if platform == .android { return androidExposureInfo(for: exposure, configuration: configuration, now: now) }
        let seconds = exposure.attenuationSegments.reduce(0.0) { $0 + max(0, $1.duration) }
        let attenuation = attenuationValue(exposure.attenuationSegments, configuration: configuration)
        let days = UTCDay.wholeDays(from: exposure.date, to: now)
        let fullRange =
            Double(attenuation) * configuration.attenuationWeight
            * Double(level(configuration.daysSinceLastExposureLevelValues, daysBucket(days)))
            * configuration.daysSinceLastExposureWeight
            * Double(level(configuration.durationLevelValues, durationBucket(seconds))) * configuration.durationWeight
            * Double(level(configuration.transmissionRiskLevelValues, Int(min(exposure.transmissionRiskLevel, 7))))
            * configuration.transmissionRiskWeight
        let total = ENRiskScore(max(0, min(255, fullRange.isNaN ? 0 : fullRange)).rounded(.down))
        let raw = rawAttenuationDurations(exposure.attenuationSegments, configuration: configuration)
        return ENExposureInfo(
            attenuationDurations: raw.map { min(UTCDay.roundedUpToMinute($0), maximumDuration) },
            attenuationValue: attenuation,
            date: exposure.date,
            duration: min(UTCDay.roundedUpToMinute(seconds), maximumDuration),
            totalRiskScore: total,
            totalRiskScoreFullRange: fullRange,
            transmissionRiskLevel: exposure.transmissionRiskLevel,
            diagnosisReportType: exposure.diagnosisReportType,
            daysSinceOnsetOfSymptoms: exposure.daysSinceOnsetOfSymptoms)
    }

    /// Apple's attenuation value: the duration-weighted mean of the attenuation level values, leaving buckets
    /// whose level value is 0 out of the divisor, rounded half away from zero and capped at 255; 0 when no time
    /// falls in a bucket with a nonzero level value.
    public static func attenuationValue(
        _ segments: [ENScoringV1.AttenuationSegment], configuration: ENExposureConfiguration
    ) -> ENAttenuation {
        var bucketSeconds = [Double](repeating: 0, count: 8)
        for segment in segments {
            bucketSeconds[attenuationBucket(segment.attenuation)] += max(0, segment.duration)
        }
        var numerator = 0.0
        var denominator = 0.0
        for (bucket, seconds) in bucketSeconds.enumerated() {
            let value = Double(level(configuration.attenuationLevelValues, bucket))
            guard seconds * value != 0 else { continue }
            numerator += seconds * value
            denominator += seconds
        }
        guard denominator > 0 else { return 0 }
        return ENAttenuation(min(255, (numerator / denominator).rounded()))
    }

    /// The index into `ENExposureConfiguration.attenuationLevelValues` for an attenuation: 0 for
    /// `> 73` dB, 1 for `(63, 73]`, 2 for `(51, 63]`, 3 for `(33, 51]`, 4 for `(27, 33]`, 5 for `(15, 27]`, 6 for
    /// `(10, 15]`, 7 for `<= 10` (Apple and Google agree).
    public static func attenuationBucket(_ attenuation: ENAttenuation) -> Int {
        let thresholds: [ENAttenuation] = [10, 15, 27, 33, 51, 63, 73]
        for (index, threshold) in thresholds.enumerated() where attenuation <= threshold { return 7 - index }
        return 0
    }

    /// The index into `ENExposureConfiguration.daysSinceLastExposureLevelValues` for whole days since
    /// the exposure: 0 for `>= 14`, 1 for `>= 12`, 2 for `>= 10`, 3 for `>= 8`, 4 for `>= 6`, 5 for `>= 4`, 6 for
    /// `>= 2`, 7 otherwise.
    public static func daysBucket(_ days: Int) -> Int {
        let thresholds = [14, 12, 10, 8, 6, 4, 2]
        for (index, threshold) in thresholds.enumerated() where days >= threshold { return index }
        return 7
    }

    /// The index into `ENExposureConfiguration.durationLevelValues` for a duration in seconds, compared
    /// in minutes as a double: 0 for 0, 1 for `<= 5`, 2 for `<= 10`, ..., 6 for `<= 30`, 7 for more.
    public static func durationBucket(_ seconds: TimeInterval) -> Int {
        let minutes = seconds / 60
        if minutes <= 0 { return 0 }
        for (index, limit) in [5.0, 10, 15, 20, 25, 30].enumerated() where minutes <= limit { return index + 1 }
        return 7
    }

    /// The longest duration any V1 value reports: 1800 seconds.
    public static let maximumDuration: TimeInterval = 1800

    // MARK: Helpers

    static func level(_ values: [ENRiskLevelValue], _ index: Int) -> ENRiskLevelValue {
        values.indices.contains(index) ? values[index] : 1
    }

    static func attenuationDurationCount(
        _ configuration: ENExposureConfiguration, platform: ENScoringPlatform = .apple
    ) -> Int {
        guard platform == .apple else { return 3 }
        let count = configuration.appliedAttenuationDurationThresholds.count
        return ENExposureConfiguration.thresholdCounts.contains(count) ? count + 1 : 4
    }

    static func rawAttenuationDurations(
        _ segments: [ENScoringV1.AttenuationSegment], configuration: ENExposureConfiguration,
        platform: ENScoringPlatform = .apple
    ) -> [TimeInterval] {
        var durations = [TimeInterval](repeating: 0, count: attenuationDurationCount(configuration, platform: platform))
        for segment in segments {
            let bucket =
                switch platform {
                case .apple:
                    min(configuration.attenuationBucket(for: segment.attenuation).rawValue, durations.count - 1)
                case .android: androidDurationBucket(segment.attenuation, configuration: configuration)
                }
            durations[bucket] += max(0, segment.duration)
        }
        return durations
    }

    /// A bucket's seconds as a V1 value reports them: Apple caps at 1800 and rounds up to the minute; Google caps
    /// at 30 minutes and its seconds-to-minutes rounding is not public, so the time is kept unrounded.
    static func reportedDuration(_ seconds: TimeInterval, platform: ENScoringPlatform) -> TimeInterval {
        switch platform {
        case .apple: UTCDay.roundedUpToMinute(min(seconds, maximumDuration))
        case .android: min(seconds, maximumDuration)
        }
    }

}
