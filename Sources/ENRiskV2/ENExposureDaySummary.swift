public import Foundation

/// The scores of one UTC day, in total and per report type (Apple's `ENExposureDaySummary`).
///
/// A per-type item is nil when the day has no scored window of that type (Apple; Google's `DailySummary` gives
/// zero-filled data for every type instead).
public struct ENExposureDaySummary: Hashable, Sendable, Codable {
    /// The UTC midnight that starts the day.
    public var date: Date
    /// All of the day's scored windows.
    public var daySummary: ENExposureSummaryItem
    /// The day's windows of keys reported after a confirmed test.
    public var confirmedTestSummary: ENExposureSummaryItem?
    /// The day's windows of keys reported after a confirmed clinical diagnosis.
    public var confirmedClinicalDiagnosisSummary: ENExposureSummaryItem?
    /// The day's windows of recursive keys.
    public var recursiveSummary: ENExposureSummaryItem?
    /// The day's windows of self-reported keys.
    public var selfReportedSummary: ENExposureSummaryItem?

    /// Creates a day summary.
    public init(
        date: Date,
        daySummary: ENExposureSummaryItem,
        confirmedTestSummary: ENExposureSummaryItem? = nil,
        confirmedClinicalDiagnosisSummary: ENExposureSummaryItem? = nil,
        recursiveSummary: ENExposureSummaryItem? = nil,
        selfReportedSummary: ENExposureSummaryItem? = nil
    ) {
        self.date = date
        self.daySummary = daySummary
        self.confirmedTestSummary = confirmedTestSummary
        self.confirmedClinicalDiagnosisSummary = confirmedClinicalDiagnosisSummary
        self.recursiveSummary = recursiveSummary
        self.selfReportedSummary = selfReportedSummary
    }
}
