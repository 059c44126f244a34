import ENCore
package import Foundation

extension ENScoringV2 {
    /// Groups of exposure windows prepared once to be scored under many configurations: each window's seconds by
    /// attenuation (``AttenuationProfile``), its age and its UTC day, each group's windows sorted into days in
    /// date order. Flat storage: reading it under a configuration counts no references.
    ///
    /// For a group's windows, the ``dayTotal(_:parameters:roundsUp:)`` of each day in ``days(ofGroup:)`` is the
    /// `daySummary` item of ``ENScoringV2/daySummaries(for:configuration:now:platform:)`` for the same windows,
    /// configuration and "now" (days without a scored window give nil): the windows are scored with the same
    /// ``Parameters`` and summed in the same order.
    package struct PreparedWindows: Sendable {
        /// One window, as scoring reads it.
        private struct Window: Sendable {
            var profile: AttenuationProfile
            var reportType: ENDiagnosisReportType
            var infectiousness: ENInfectiousness
            var wholeDaysBeforeNow: Int
        }

        /// Every group's windows, group after group, each group's ordered by UTC day and in input order within a
        /// day.
        private var windows: [Window] = []
        /// The profiles' accumulated seconds.
        private var storage: [Int] = []
        /// Day `d`'s windows are `windows[dayStarts[d] ..< dayStarts[d + 1]]`.
        private var dayStarts: [Int] = [0]
        /// Group `g`'s days are `groupStarts[g] ..< groupStarts[g + 1]`.
        private var groupStarts: [Int] = [0]

        /// No groups.
        package init() {}

        /// The number of groups.
        package var groupCount: Int { groupStarts.count - 1 }

        /// Adds a group of windows scored at `now`, and returns its index.
        @discardableResult
        package mutating func append(_ group: [ENExposureWindow], now: Date) -> Int {
            let days = group.map { UTCDay.number(of: $0.date) }
            let order = group.indices.sorted { days[$0] < days[$1] || (days[$0] == days[$1] && $0 < $1) }
            for (position, index) in order.enumerated() {
                if position > 0, days[order[position - 1]] != days[index] { dayStarts.append(windows.count) }
                let window = group[index]
                windows.append(
                    Window(
                        profile: AttenuationProfile(window.scanInstances, appendingTo: &storage),
                        reportType: window.diagnosisReportType, infectiousness: window.infectiousness,
                        wholeDaysBeforeNow: UTCDay.wholeDays(from: window.date, to: now)))
            }
            if !order.isEmpty { dayStarts.append(windows.count) }
            groupStarts.append(dayStarts.count - 1)
            return groupStarts.count - 2
        }

        /// The days with a window (scored or not) of group `group`, in date order.
        package func days(ofGroup group: Int) -> Range<Int> {
            groupStarts[group]..<groupStarts[group + 1]
        }

        /// The sums of the scored windows of day `day` under `parameters`, rounded up to the minute when
        /// `roundsUp` (Apple), or nil when none of the day's windows is scored.
        package func dayTotal(_ day: Int, parameters: Parameters, roundsUp: Bool) -> ENExposureSummaryItem? {
            var sums = ItemAccumulator()
            var scored = false
            for index in dayStarts[day]..<dayStarts[day + 1] {
                let window = windows[index]
                guard parameters.admits(wholeDaysBeforeNow: window.wholeDaysBeforeNow),
                    let reportType = parameters.scoredReportType(
                        window.reportType, infectiousness: window.infectiousness),
                    let score = parameters.score(
                        window.profile.bucketSeconds(parameters.thresholds, in: storage), reportType: reportType,
                        infectiousness: window.infectiousness)
                else { continue }
                sums.add(score)
                scored = true
            }
            return scored ? sums.item(roundsUp) : nil
        }
    }
}
