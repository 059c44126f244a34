/// Corona-Warn-App's `RiskCalculationParameters` (from November 2020), with CWA's field names.
public struct ENCWARiskParameters: Hashable, Sendable {
    /// A range of doubles with inclusive or exclusive ends (CWA's `ENARange`).
    public struct Range: Hashable, Sendable {
        /// The lower end.
        public var min: Double
        /// The upper end.
        public var max: Double
        /// Whether `min` itself is outside.
        public var minExclusive: Bool
        /// Whether `max` itself is outside.
        public var maxExclusive: Bool

        /// Creates a range.
        public init(min: Double, max: Double, minExclusive: Bool = false, maxExclusive: Bool = false) {
            self.min = min
            self.max = max
            self.minExclusive = minExclusive
            self.maxExclusive = maxExclusive
        }

        /// CWA's test: `minExclusive ? x > min : x >= min` and `maxExclusive ? x < max : x <= max`.
        public func contains(_ value: Double) -> Bool {
            (minExclusive ? value > min : value >= min) && (maxExclusive ? value < max : value <= max)
        }
    }

    /// Drop a window when its minutes at `attenuationRange` (by minimum attenuation) are in `dropIfMinutesInRange`.
    public var minutesAtAttenuationFilters: [MinutesFilter]
    /// Drop a window whose transmission risk level is in one of these.
    public var trlFilters: [Range]
    /// The weight of the first range containing a scan's minimum attenuation.
    public var minutesAtAttenuationWeights: [Weight]
    /// A window's risk level (1 low, 2 high) by normalized time; none: the window is dropped.
    public var normalizedTimePerWindowToRiskLevel: [LevelMapping]
    /// A day's risk level by the day's normalized time.
    public var normalizedTimePerDayToRiskLevel: [LevelMapping]
    /// The report-type offsets, indexed by `ENDiagnosisReportType` raw value 1...4.
    public var reportTypeOffsets: [Int: Int]
    /// The offset for standard infectiousness.
    public var infectiousnessOffsetStandard: Int
    /// The offset for high infectiousness.
    public var infectiousnessOffsetHigh: Int
    /// The transmission risk value per level; empty: ``transmissionRiskLevelMultiplier`` × level.
    public var transmissionRiskValueMapping: [Int: Double]
    /// The 2020 form's multiplier.
    public var transmissionRiskLevelMultiplier: Double
    /// Windows older than this many days are ignored; 0: no age filter.
    public var maxEncounterAgeInDays: Int

    /// Creates parameters.
    public init(
        minutesAtAttenuationFilters: [MinutesFilter] = [],
        trlFilters: [Range] = [],
        minutesAtAttenuationWeights: [Weight],
        normalizedTimePerWindowToRiskLevel: [LevelMapping],
        normalizedTimePerDayToRiskLevel: [LevelMapping],
        reportTypeOffsets: [Int: Int], infectiousnessOffsetStandard: Int, infectiousnessOffsetHigh: Int,
        transmissionRiskValueMapping: [Int: Double] = [:], transmissionRiskLevelMultiplier: Double = 0,
        maxEncounterAgeInDays: Int = 0
    ) {
        self.minutesAtAttenuationFilters = minutesAtAttenuationFilters
        self.trlFilters = trlFilters
        self.minutesAtAttenuationWeights = minutesAtAttenuationWeights
        self.normalizedTimePerWindowToRiskLevel = normalizedTimePerWindowToRiskLevel
        self.normalizedTimePerDayToRiskLevel = normalizedTimePerDayToRiskLevel
        self.reportTypeOffsets = reportTypeOffsets
        self.infectiousnessOffsetStandard = infectiousnessOffsetStandard
        self.infectiousnessOffsetHigh = infectiousnessOffsetHigh
        self.transmissionRiskValueMapping = transmissionRiskValueMapping
        self.transmissionRiskLevelMultiplier = transmissionRiskLevelMultiplier
        self.maxEncounterAgeInDays = maxEncounterAgeInDays
    }

    /// A minutes-at-attenuation filter.
    public struct MinutesFilter: Hashable, Sendable {
        /// The minimum attenuations whose time counts.
        public var attenuationRange: Range
        /// The window is dropped when its minutes fall in this range.
        public var dropIfMinutesInRange: Range

        /// Creates a filter.
        public init(attenuationRange: Range, dropIfMinutesInRange: Range) {
            self.attenuationRange = attenuationRange
            self.dropIfMinutesInRange = dropIfMinutesInRange
        }
    }

    /// A minutes-at-attenuation weight.
    public struct Weight: Hashable, Sendable {
        /// The minimum attenuations the weight applies to.
        public var attenuationRange: Range
        /// The weight, at least 0.
        public var weight: Double

        /// Creates a weight.
        public init(attenuationRange: Range, weight: Double) {
            self.attenuationRange = attenuationRange
            self.weight = weight
        }
    }

    /// A normalized-time range and the risk level it maps to.
    public struct LevelMapping: Hashable, Sendable {
        /// The normalized times.
        public var range: Range
        /// 1 (low) or 2 (high).
        public var riskLevel: Int

        /// Creates a mapping.
        public init(range: Range, riskLevel: Int) {
            self.range = range
            self.riskLevel = riskLevel
        }
    }
}
