internal import ENCore
import Foundation

/// Corona-Warn-App's exposure-window risk calculation (from November 2020), in CWA's order of operations.
enum CWARiskCalculation {
    /// The first mapping's level whose range contains `value`, or nil.
    static func level(_ value: Double, _ mappings: [ENCWARiskParameters.LevelMapping]) -> Int? {
        mappings.first { $0.range.contains(value) }?.riskLevel
    }

    /// The largest per-day normalized time over the kept windows (0 when none is kept).
    static func maximumDayNormalizedTime(
        _ windows: [ENEvaluator.Window], parameters: ENCWARiskParameters, encounter: String,
        rule: ENNotificationRule, now: Date
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
            guard let time = normalizedTime(window, reportType: reportType, infectiousness: infectiousness, parameters)
            else { continue }
            days[UTCDay.number(of: window.date), default: 0] += time
        }
        return days.values.max() ?? 0
    }

    /// Steps 1-7 for one window: its normalized time, or nil when a filter or the window mapping drops it.
    static func normalizedTime(
        _ window: ENEvaluator.Window, reportType: ENDiagnosisReportType, infectiousness: ENInfectiousness,
        _ parameters: ENCWARiskParameters
    ) -> Double? {
        for filter in parameters.minutesAtAttenuationFilters {
            let seconds = window.scans.reduce(0.0) {
                $0 + (filter.attenuationRange.contains(Double($1.minimum)) ? max($1.seconds, 0) : 0)
            }
            if filter.dropIfMinutesInRange.contains(seconds / 60) { return nil }
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
