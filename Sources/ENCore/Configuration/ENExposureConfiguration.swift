/// The parameters of version 1 and version 2 risk scoring: Apple's `ENExposureConfiguration` as a value type.
///
/// Every property keeps Apple's name, unit and default, so a configuration written for Apple's framework
/// (or served by the sample app's server, see ``init(jsonData:)``) scores identically here. Construction does
/// not check anything; ``validate()`` does, and the JSON decoder always calls it.
///
/// Version 1 properties (`ENAPIVersion` 1): the four level-value tables and their weights,
/// ``minimumRiskScore``, ``minimumRiskScoreFullRange`` and ``attenuationDurationThresholds``.
/// Version 2 properties: the duration weights (percent), the infectiousness map and weights, the report-type
/// weights, ``reportTypeNoneMap`` and ``daysSinceLastExposureThreshold``. The minimum scores and the
/// attenuation thresholds apply to both.
///
/// ```swift
/// var configuration = ENExposureConfiguration()
/// configuration.immediateDurationWeight = 150
/// configuration.infectiousnessByDaysSinceOnsetOfSymptoms = [0: .high, ENDaysSinceOnsetOfSymptomsUnknown: .standard]
/// try configuration.validate()
/// ```
public struct ENExposureConfiguration: Hashable, Sendable {
    // MARK: Version 1

    /// The level values for attenuation buckets `> 73`, `(63, 73]`, `(51, 63]`, `(33, 51]`, `(27, 33]`, `(15, 27]`,
    /// `(10, 15]` and `<= 10` dB, in that order. Eight values 0...8; default `[1, 2, 3, 4, 5, 6, 7, 8]`.
    public var attenuationLevelValues: [ENRiskLevelValue]
    /// The level values for days since the exposure `>= 14`, `>= 12`, `>= 10`, `>= 8`, `>= 6`, `>= 4`, `>= 2` and
    /// fewer, in that order. Eight values 0...8; default `[1, 2, 3, 4, 5, 6, 7, 8]`.
    public var daysSinceLastExposureLevelValues: [ENRiskLevelValue]
    /// The level values for exposure durations of 0, `<= 5`, `<= 10`, `<= 15`, `<= 20`, `<= 25`, `<= 30` and more
    /// minutes, in that order. Eight values 0...8; default `[1, 2, 3, 4, 5, 6, 7, 8]`.
    public var durationLevelValues: [ENRiskLevelValue]
    /// The level values for transmission risk levels 0...7, in that order (a level above 7 uses the last).
    /// Eight values 0...8; default `[1, 2, 3, 4, 5, 6, 7, 8]`.
    ///
    /// Apple indexes this table with the level itself (`values[level]`); Google's V1 uses `values[level - 1]`
    /// and a fixed 1 for level 0. This package follows Apple.
    public var transmissionRiskLevelValues: [ENRiskLevelValue]

    /// The multiplier for the attenuation level value, 0...100; default 1 (``ENRiskWeightDefault``).
    ///
    /// Apple's documentation says the V1 weights are "not used"; Apple's published implementation multiplies each
    /// level value by its weight. This package multiplies (identical at the default 1), so a weight other than 1
    /// changes the full-range score exactly as that implementation does.
    public var attenuationWeight: Double
    /// The multiplier for the days-since-exposure level value, 0...100; default 1. See ``attenuationWeight``.
    public var daysSinceLastExposureWeight: Double
    /// The multiplier for the duration level value, 0...100; default 1. See ``attenuationWeight``.
    public var durationWeight: Double
    /// The multiplier for the transmission risk level value, 0...100; default 1. See ``attenuationWeight``.
    public var transmissionRiskWeight: Double

    /// Exposures (V1) and windows (V2) whose risk score, clamped to 0...255, is below this are left out of the
    /// results. Default 0: nothing is filtered.
    public var minimumRiskScore: ENRiskScore
    /// Exposures (V1) and windows (V2) whose full-range (unclamped) score is below this are left out of the
    /// results. 0...4096; default 0.
    public var minimumRiskScoreFullRange: Double

    /// The attenuation thresholds in dB, 2 or 3 values 0...255; default `[50, 70, 90]`.
    ///
    /// Version 1 splits exposure time into `<= X`, `(X, Y]`, `(Y, Z]` and `> Z` (`ENExposureInfo.attenuationDurations`
    /// in ENRiskV1); version 2 weights scan time by the same buckets (immediate, near, medium, other),
    /// all edges inclusive upper bounds. With two thresholds the third is 255, so "other" is empty. Google's V1
    /// puts the inclusive edge on the other side (`< X`, `[X, Y)`); this package follows Apple.
    public var attenuationDurationThresholds: [Int]

    // MARK: Version 2

    /// The weight, in percent 0...250, of time at attenuation `<= attenuationDurationThresholds[0]`; default 100.
    public var immediateDurationWeight: Double
    /// The weight, in percent 0...250, of time at attenuation in `(X, Y]`; default 100.
    public var nearDurationWeight: Double
    /// The weight, in percent 0...250, of time at attenuation in `(Y, Z]`; default 100.
    public var mediumDurationWeight: Double
    /// The weight, in percent 0...250, of time at attenuation above the last threshold; default 100.
    public var otherDurationWeight: Double

    /// The infectiousness of a key from its days since onset of symptoms, in Apple's shape: keys are days
    /// (-14...14, or ``ENDaysSinceOnsetOfSymptomsUnknown``), values are ``ENInfectiousness`` raw values (0 none,
    /// 1 standard, 2 high), as Apple's `[NSNumber: NSNumber]` holds them. Days that are not in the map are
    /// ``ENInfectiousness/none``, and windows with infectiousness none are not scored. Default `nil` (no map), as
    /// Apple's: version 2 scoring needs it configured. ``validate()`` refuses a value that is not an infectiousness.
    ///
    /// ``infectiousnessByDaysSinceOnsetOfSymptoms`` is the same map with typed values.
    public var infectiousnessForDaysSinceOnsetOfSymptoms: [Int: Int]?
    /// The weight, in percent 0...250, of windows with standard infectiousness; default 100.
    public var infectiousnessStandardWeight: Double
    /// The weight, in percent 0...250, of windows with high infectiousness; default 100.
    public var infectiousnessHighWeight: Double

    /// The weight, in percent 0...250, of keys reported after a confirmed test; default 100.
    public var reportTypeConfirmedTestWeight: Double
    /// The weight, in percent 0...250, of keys reported after a confirmed clinical diagnosis; default 100.
    public var reportTypeConfirmedClinicalDiagnosisWeight: Double
    /// The weight, in percent 0...250, of self-reported keys; default 100.
    public var reportTypeSelfReportedWeight: Double
    /// The weight, in percent 0...250, of recursive keys; default 100.
    ///
    /// A disassembly of iOS suggests that iOS weighs recursive keys with the confirmed-test weight; Apple
    /// documents this property, so this package uses it.
    public var reportTypeRecursiveWeight: Double
    /// The report type given to keys without one (or with a type outside 1...4). Default
    /// ``ENDiagnosisReportType/confirmedTest``. ``ENDiagnosisReportType/unknown`` means such keys are ignored.
    ///
    /// Apple does not document the default; the value 1 is read from iOS's initializer and is what the sample
    /// app's server sends. Google's equivalent, `reportTypeWhenMissing`, has no default.
    public var reportTypeNoneMap: ENDiagnosisReportType
    /// Windows more than this many days before "now" are not scored; 0 (the default) scores every day.
    public var daysSinceLastExposureThreshold: Int

    // MARK: Both

    /// Free-form values the app attaches to the configuration, as JSON values. Apple's framework ignores them.
    /// Default nil. ``metadata`` is the same dictionary in Apple's shape, `[AnyHashable: Any]?`.
    public var metadataValues: [String: ENMetadataValue]?

    /// Creates a configuration with Apple's defaults.
    public init() {
        let levels: [ENRiskLevelValue] = [1, 2, 3, 4, 5, 6, 7, 8]
        attenuationLevelValues = levels
        daysSinceLastExposureLevelValues = levels
        durationLevelValues = levels
        transmissionRiskLevelValues = levels
        attenuationWeight = Double(ENRiskWeightDefault)
        daysSinceLastExposureWeight = Double(ENRiskWeightDefault)
        durationWeight = Double(ENRiskWeightDefault)
        transmissionRiskWeight = Double(ENRiskWeightDefault)
        minimumRiskScore = 0
        minimumRiskScoreFullRange = 0
        attenuationDurationThresholds = Self.defaultAttenuationDurationThresholds
        immediateDurationWeight = Double(ENRiskWeightDefaultV2)
        nearDurationWeight = Double(ENRiskWeightDefaultV2)
        mediumDurationWeight = Double(ENRiskWeightDefaultV2)
        otherDurationWeight = Double(ENRiskWeightDefaultV2)
        infectiousnessForDaysSinceOnsetOfSymptoms = nil
        infectiousnessStandardWeight = Double(ENRiskWeightDefaultV2)
        infectiousnessHighWeight = Double(ENRiskWeightDefaultV2)
        reportTypeConfirmedTestWeight = Double(ENRiskWeightDefaultV2)
        reportTypeConfirmedClinicalDiagnosisWeight = Double(ENRiskWeightDefaultV2)
        reportTypeSelfReportedWeight = Double(ENRiskWeightDefaultV2)
        reportTypeRecursiveWeight = Double(ENRiskWeightDefaultV2)
        reportTypeNoneMap = .confirmedTest
        daysSinceLastExposureThreshold = 0
        metadataValues = nil
    }

    /// Apple's default attenuation thresholds, `[50, 70, 90]` dB (Apple's header and documentation; Apple's 2020
    /// sample implementation used `[50, 70]`, Google's V1 `[50, 74]`).
    public static let defaultAttenuationDurationThresholds: [Int] = [50, 70, 90]
}
