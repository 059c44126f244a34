internal import ENCore
import Foundation

/// Corona-Warn-App's exposure-window risk calculation (from November 2020), in CWA's order of operations, as each
/// platform's app computed it: the Android app (`DefaultRiskLevels.kt`) rounds a day's normalized time to one
/// decimal, half up (since 59d5e4afec, 17 Mar 2022), takes a filter's minutes as seconds / 60 and rejects an
/// unknown report type; the iOS app (`RiskCalculation.swift`, `RiskCalculationExposureWindow.swift`) does not
/// round the day, takes whole minutes (integer division of the summed seconds) and gives an unknown report type
/// offset 0.
enum CWARiskCalculation {
    /// The first mapping's level whose range contains `value`, or nil.
    static func level(_ value: Double, _ mappings: [ENCWARiskParameters.LevelMapping]) -> Int? {
        mappings.first { $0.range.contains(value) }?.riskLevel
    }

    /// The largest per-day normalized time over the kept windows (0 when none is kept).
    static func maximumDayNormalizedTime(
        _ windows: [ENEvaluator.Window], parameters: ENCWARiskParameters, encounter: String,
        rule: ENNotificationRule, now: Date, platform: ENScoringPlatform
    ) throws(ENError) -> Double {
        var days: [Int64: Double] = [:]
        for window in windows {
            if parameters.maxEncounterAgeInDays > 0,
                UTCDay.wholeDays(from: window.date, to: now) > parameters.maxEncounterAgeInDays
            {
                continue
            }
            guard let reportType = window.reportType else {
                throw ENEvaluator.missing("reportType", encounter, rule: rule)
            }
            guard let infectiousness = window.infectiousness else {
                throw ENEvaluator.missing("infectiousness", encounter, rule: rule)
            }
            if platform == .android, reportType == .unknown {
                throw .badParameter(
                    "Corona-Warn-App's Android app rejects a window with an unknown report type",
                    context: ENError.Context(section: "encounter \(encounter)", field: "reportType"))
            }
            guard
                let time = normalizedTime(
                    window, reportType: reportType, infectiousness: infectiousness, parameters, platform: platform)
            else { continue }
            days[UTCDay.number(of: window.date), default: 0] += time
        }
        let maximum = days.values.max() ?? 0
        return platform == .android ? roundedToOneDecimal(maximum) : maximum
    }

    /// Kotlin's `(x * 10).roundToLong() / 10.0` (the Android app's `roundToDecimal(1u)`): half up.
    static func roundedToOneDecimal(_ value: Double) -> Double {
        (value * 10 + 0.5).rounded(.down) / 10
    }

    /// Steps 1-7 for one window: its normalized time, or nil when a filter or the window mapping drops it.
    static func normalizedTime(
        _ window: ENEvaluator.Window, reportType: ENDiagnosisReportType, infectiousness: ENInfectiousness,
        _ parameters: ENCWARiskParameters, platform: ENScoringPlatform
    ) -> Double? {
        for filter in parameters.minutesAtAttenuationFilters {
            let seconds = window.scans.reduce(0.0) {
                $0 + (filter.attenuationRange.contains(Double($1.minimum)) ? max($1.seconds, 0) : 0)
            }
            let minutes = platform == .android ? seconds / 60 : (seconds.rounded(.down) / 60).rounded(.down)
            if filter.dropIfMinutesInRange.contains(minutes) { return nil }
        }
        let offset = parameters.reportTypeOffsets[Int(reportType.rawValue)] ?? 0
        let trl =
            offset
            + (infectiousness == .high ? parameters.infectiousnessOffsetHigh : parameters.infectiousnessOffsetStandard)
        if parameters.trlFilters.contains(where: { $0.contains(Double(trl)) }) { return nil }
        let value =
            parameters.transmissionRiskValueMapping.isEmpty
            ? Double(trl) * parameters.transmissionRiskLevelMultiplier
            : parameters.transmissionRiskValueMapping[trl] ?? 0
        var weighted = 0.0
        for scan in window.scans {
            let weight =
                parameters.minutesAtAttenuationWeights.first { $0.attenuationRange.contains(Double(scan.minimum)) }?
                .weight ?? 0
            weighted += max(scan.seconds, 0) * weight
        }
        let time = value * (weighted / 60)
        guard level(time, parameters.normalizedTimePerWindowToRiskLevel) != nil else { return nil }
        return time
    }
}
