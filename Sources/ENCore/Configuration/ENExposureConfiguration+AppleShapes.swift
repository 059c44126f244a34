import Foundation

/// The members whose Apple shape and Swift-native shape differ, each offered in both.
///
/// Apple's `ENExposureConfiguration` holds the infectiousness map as `[NSNumber: NSNumber]` and the metadata as
/// `[AnyHashable: Any]?`. This package stores them as ``ENExposureConfiguration/infectiousnessForDaysSinceOnsetOfSymptoms``
/// (`[Int: Int]`, Apple's shape with `NSNumber` become the Swift number type) and
/// ``ENExposureConfiguration/metadataValues`` (JSON values, so that the configuration stays `Sendable`,
/// `Hashable` and `Codable`); the properties here read and write the same data in the other shape.
extension ENExposureConfiguration {
    /// ``infectiousnessForDaysSinceOnsetOfSymptoms`` with typed values.
    ///
    /// Reading skips entries whose value is not an infectiousness (``validate()`` refuses them); writing replaces
    /// the whole map.
    ///
    /// ```swift
    /// configuration.infectiousnessByDaysSinceOnsetOfSymptoms = [0: .high, ENDaysSinceOnsetOfSymptomsUnknown: .standard]
    /// ```
    public var infectiousnessByDaysSinceOnsetOfSymptoms: [Int: ENInfectiousness] {
        get { (infectiousnessForDaysSinceOnsetOfSymptoms ?? [:]).compactMapValues(ENInfectiousness.init(exactly:)) }
        set { infectiousnessForDaysSinceOnsetOfSymptoms = newValue.mapValues { Int($0.rawValue) } }
    }

    /// The attenuation thresholds scoring uses: ``attenuationDurationThresholds``, or, while that property holds its
    /// default, `metadata["attenuationDurationThresholds"]` when it holds 2 or 3 whole numbers. iOS 13.5 read the
    /// thresholds from the metadata (the property came with iOS 13.6), so apps of that time set them there only.
    package var appliedAttenuationDurationThresholds: [Int] {
        guard attenuationDurationThresholds == Self.defaultAttenuationDurationThresholds,
            case .array(let items)? = metadataValues?["attenuationDurationThresholds"]
        else { return attenuationDurationThresholds }
        let numbers = items.compactMap { item -> Int? in
            guard case .number(let value) = item else { return nil }
            return Int(exactly: value)
        }
        guard numbers.count == items.count, Self.thresholdCounts.contains(numbers.count) else {
            return attenuationDurationThresholds
        }
        return numbers
    }

    /// Free-form values the app attaches to the configuration, in Apple's shape. Apple's framework ignores them,
    /// except `"attenuationDurationThresholds"`, which iOS 13.5 read: scoring
    /// uses it while ``attenuationDurationThresholds`` holds its default.
    ///
    /// This reads and writes ``metadataValues``. Writing keeps what JSON can hold: strings, booleans, numbers
    /// (Swift's integer and floating-point types, `NSNumber`, `Decimal`), `NSNull`, arrays and dictionaries of
    /// those; a value of any other type is left out, and a key that is not a string is written as its
    /// description. Reading gives `String`, `Bool`, `Int` for a whole number that fits, `Double` for another
    /// number, `NSNull`, `[Any]` and `[String: Any]`, so that the sample app's
    /// `metadata = ["attenuationDurationThresholds": [50, 70]]` reads back as `[Int]`.
    public var metadata: [AnyHashable: Any]? {
        get {
            metadataValues.map { values in
                Dictionary(uniqueKeysWithValues: values.map { (AnyHashable($0.key), $0.value.bridgedValue) })
            }
        }
        set {
            guard let newValue, case .object(let values)? = ENMetadataValue(bridging: newValue) else {
                metadataValues = nil
                return
            }
            metadataValues = values
        }
    }
}
