public import ENCore
public import Foundation

extension ENScoringV1 {
    /// Google's V1 attenuation value: the time-weighted mean of the segments' attenuations in dB,
    /// `(int) Math.round(Σ attenuation × seconds / Σ seconds)` (rounded half up), at most 255; 0 without time
    /// (`KeyExposureEvaluator.weightAttenuationOfPeriods`).
    public static func androidAttenuationValue(_ segments: [ENScoringV1.AttenuationSegment]) -> ENAttenuation {
        var weighted = 0.0
        var seconds = 0.0
        for segment in segments {
            let duration = max(0, segment.duration)
            weighted += Double(segment.attenuation) * duration
            seconds += duration
        }
        guard seconds > 0 else { return 0 }
        return ENAttenuation(min(255, (weighted / seconds + 0.5).rounded(.down)))
    }

    /// Google's V1 exposure duration: the seconds rounded to the nearest multiple of 300, a remainder of 150 s or
    /// less rounding down (`KeyExposureEvaluator.bucketizeDuration`; there the sightings' span plus one 300-second
    /// scan interval, which is what the segments of a window or a histogram already add up to).
    public static func androidDuration(_ seconds: TimeInterval) -> TimeInterval {
        let interval = 300.0
        let total = max(0, seconds)
        let remainder = total.truncatingRemainder(dividingBy: interval)
        return remainder <= interval / 2 ? total - remainder : total + interval - remainder
    }

    /// Google's `attenuationDurations` bucket: 0 for `a < low`, 1 for `low <= a < high`, 2 for `a >= high`, with
    /// the configuration's first two thresholds (`KeyExposureEvaluator.getTimeBelowAndAbove`).
    static func androidDurationBucket(_ attenuation: ENAttenuation, configuration: ENExposureConfiguration) -> Int {
        let thresholds = configuration.attenuationDurationThresholds
        let low = thresholds.first ?? 50
        let high = thresholds.count > 1 ? thresholds[1] : low
        if Int(attenuation) < Int(low) { return 0 }
        return Int(attenuation) < Int(high) ? 1 : 2
    }

    static func androidExposureInfo(
        for exposure: ENScoringV1.Exposure, configuration: ENExposureConfiguration, now: Date
    ) -> ENExposureInfo {
        let seconds = exposure.attenuationSegments.reduce(0.0) { $0 + max(0, $1.duration) }
        let attenuation = androidAttenuationValue(exposure.attenuationSegments)
        let duration = androidDuration(seconds)
        let days = UTCDay.wholeDays(from: exposure.date, to: now)
        let transmission: ENRiskLevelValue =
            exposure.transmissionRiskLevel == 0
            ? 1 : level(configuration.transmissionRiskLevelValues, Int(exposure.transmissionRiskLevel) - 1)
        let product =
            Double(level(configuration.attenuationLevelValues, attenuationBucket(attenuation)))
            * Double(level(configuration.daysSinceLastExposureLevelValues, daysBucket(days)))
            * Double(level(configuration.durationLevelValues, durationBucket((duration / 60).rounded(.down) * 60)))
            * Double(transmission)
        let raw = rawAttenuationDurations(
            exposure.attenuationSegments, configuration: configuration, platform: .android)
        return ENExposureInfo(
            attenuationDurations: raw.map { reportedDuration($0, platform: .android) },
            attenuationValue: attenuation,
            date: exposure.date,
            duration: min(duration, maximumDuration),
            totalRiskScore: ENRiskScore(min(255, product)),
            totalRiskScoreFullRange: product,
            transmissionRiskLevel: exposure.transmissionRiskLevel,
            diagnosisReportType: exposure.diagnosisReportType,
            daysSinceOnsetOfSymptoms: exposure.daysSinceOnsetOfSymptoms)
    }
}
