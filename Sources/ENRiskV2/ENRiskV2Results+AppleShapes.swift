internal import ENCore
internal import Foundation

// Apple's result classes have `init()` and `description`; these value types have both too.

extension ENExposureWindow: CustomStringConvertible {
    /// An empty window, as Apple's `ENExposureWindow()`: no scans, the reference date, unknown report type,
    /// infectiousness none.
    public init() {
        self.init(
            date: Date(timeIntervalSinceReferenceDate: 0), diagnosisReportType: .unknown, infectiousness: .none,
            scanInstances: [])
    }

    /// The type's name and its properties.
    public var description: String { ENDescription.of(self) }
}

extension ENScanInstance: CustomStringConvertible {
    /// A scan of attenuation 0 and no duration, as Apple's `ENScanInstance()`.
    public init() { self.init(minimumAttenuation: 0, typicalAttenuation: 0, secondsSinceLastScan: 0) }

    /// The type's name and its properties.
    public var description: String { ENDescription.of(self) }
}

extension ENExposureSummaryItem: CustomStringConvertible {
    /// An item of no exposure, as Apple's `ENExposureSummaryItem()`.
    public init() { self.init(maximumScore: 0, scoreSum: 0, weightedDurationSum: 0) }

    /// The type's name and its properties.
    public var description: String { ENDescription.of(self) }
}

extension ENExposureDaySummary: CustomStringConvertible {
    /// A day of no exposure, as Apple's `ENExposureDaySummary()`: the reference date and an empty day summary.
    public init() { self.init(date: Date(timeIntervalSinceReferenceDate: 0), daySummary: ENExposureSummaryItem()) }

    /// The type's name and its properties.
    public var description: String { ENDescription.of(self) }
}
