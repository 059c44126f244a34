public import Foundation

/// Reads and writes the exposure-configuration JSON of Apple's sample app server.
///
/// Two formats decode:
/// - the current one (Apple's "Building an App to Notify Users of COVID-19 Exposure"): Apple's property names,
///   with ``ENExposureConfiguration/infectiousnessForDaysSinceOnsetOfSymptoms`` as an object whose keys are the
///   strings `"-14"`...`"14"` and `"unknown"`;
/// - the earlier one (the `ENExposureDetectionSession` version of the sample): the level-value tables named
///   `attenuationScores`, `daysSinceLastExposureScores`, `durationScores` and `transmissionRiskScores`.
///
/// Absent properties keep Apple's defaults; unknown properties are ignored. When a table is given under both
/// names, the current name wins. The decoded configuration is validated; a failure is an ``ENError`` with
/// ``ENError/Code/badParameter`` naming the property. Encoding always writes the current format, every property.
///
/// The sample app copies `attenuationDurationThresholds` into the configuration's metadata rather than the
/// property (its code predates the property); this package sets the property, which is what the value means.
extension ENExposureConfiguration: Codable {
    /// Decodes and validates a configuration. Errors thrown are ``ENError``s (``ENError/Code/badParameter``).
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: ConfigurationKey.self)
        let reader = FieldReader(container: container)

        if let v = try reader.levels("attenuationLevelValues", legacy: "attenuationScores") {
            attenuationLevelValues = v
        }
        if let v = try reader.levels("daysSinceLastExposureLevelValues", legacy: "daysSinceLastExposureScores") {
            daysSinceLastExposureLevelValues = v
        }
        if let v = try reader.levels("durationLevelValues", legacy: "durationScores") { durationLevelValues = v }
        if let v = try reader.levels("transmissionRiskLevelValues", legacy: "transmissionRiskScores") {
            transmissionRiskLevelValues = v
        }
        try reader.double("attenuationWeight") { attenuationWeight = $0 }
        try reader.double("daysSinceLastExposureWeight") { daysSinceLastExposureWeight = $0 }
        try reader.double("durationWeight") { durationWeight = $0 }
        try reader.double("transmissionRiskWeight") { transmissionRiskWeight = $0 }
        if let score = try reader.integer("minimumRiskScore") {
            guard let value = ENRiskScore(exactly: score) else {
                throw ENError.badParameter(
                    "minimumRiskScore must be 0...255, got \(score)", context: .init(field: "minimumRiskScore"))
            }
            minimumRiskScore = value
        }
        try reader.double("minimumRiskScoreFullRange") { minimumRiskScoreFullRange = $0 }
        if let thresholds = try reader.integers("attenuationDurationThresholds") {
            attenuationDurationThresholds = thresholds
        }
        try reader.double("immediateDurationWeight") { immediateDurationWeight = $0 }
        try reader.double("nearDurationWeight") { nearDurationWeight = $0 }
        try reader.double("mediumDurationWeight") { mediumDurationWeight = $0 }
        try reader.double("otherDurationWeight") { otherDurationWeight = $0 }
        if let map = try reader.infectiousnessMap("infectiousnessForDaysSinceOnsetOfSymptoms") {
            infectiousnessForDaysSinceOnsetOfSymptoms = map
        }
        try reader.double("infectiousnessStandardWeight") { infectiousnessStandardWeight = $0 }
        try reader.double("infectiousnessHighWeight") { infectiousnessHighWeight = $0 }
        try reader.double("reportTypeConfirmedTestWeight") { reportTypeConfirmedTestWeight = $0 }
        try reader.double("reportTypeConfirmedClinicalDiagnosisWeight") {
            reportTypeConfirmedClinicalDiagnosisWeight = $0
        }
        try reader.double("reportTypeSelfReportedWeight") { reportTypeSelfReportedWeight = $0 }
        try reader.double("reportTypeRecursiveWeight") { reportTypeRecursiveWeight = $0 }
        if let raw = try reader.integer("reportTypeNoneMap") {
            guard let type = UInt32(exactly: raw).flatMap(ENDiagnosisReportType.init(rawValue:)), type != .revoked
            else {
                throw ENError.badParameter(
                    "reportTypeNoneMap must be 0...4, got \(raw)", context: .init(field: "reportTypeNoneMap"))
            }
            reportTypeNoneMap = type
        }
        if let days = try reader.integer("daysSinceLastExposureThreshold") { daysSinceLastExposureThreshold = days }
        if container.contains(ConfigurationKey("metadata")) {
            metadataValues = try reader.decode([String: ENMetadataValue]?.self, "metadata", expected: "an object")
        }
        try validate()
    }

    /// Encodes the configuration in the current server format (every property, days as string keys).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigurationKey.self)
        try container.encode(attenuationLevelValues, forKey: "attenuationLevelValues")
        try container.encode(daysSinceLastExposureLevelValues, forKey: "daysSinceLastExposureLevelValues")
        try container.encode(durationLevelValues, forKey: "durationLevelValues")
        try container.encode(transmissionRiskLevelValues, forKey: "transmissionRiskLevelValues")
        try container.encode(attenuationWeight, forKey: "attenuationWeight")
        try container.encode(daysSinceLastExposureWeight, forKey: "daysSinceLastExposureWeight")
        try container.encode(durationWeight, forKey: "durationWeight")
        try container.encode(transmissionRiskWeight, forKey: "transmissionRiskWeight")
        try container.encode(minimumRiskScore, forKey: "minimumRiskScore")
        try container.encode(minimumRiskScoreFullRange, forKey: "minimumRiskScoreFullRange")
        try container.encode(attenuationDurationThresholds, forKey: "attenuationDurationThresholds")
        try container.encode(immediateDurationWeight, forKey: "immediateDurationWeight")
        try container.encode(nearDurationWeight, forKey: "nearDurationWeight")
        try container.encode(mediumDurationWeight, forKey: "mediumDurationWeight")
        try container.encode(otherDurationWeight, forKey: "otherDurationWeight")
        if let days = infectiousnessForDaysSinceOnsetOfSymptoms {
            var map: [String: Int] = [:]
            for (day, infectiousness) in days {
                map[day == ENDaysSinceOnsetOfSymptomsUnknown ? Self.unknownDayKey : String(day)] = infectiousness
            }
            try container.encode(map, forKey: "infectiousnessForDaysSinceOnsetOfSymptoms")
        }
        try container.encode(infectiousnessStandardWeight, forKey: "infectiousnessStandardWeight")
        try container.encode(infectiousnessHighWeight, forKey: "infectiousnessHighWeight")
        try container.encode(reportTypeConfirmedTestWeight, forKey: "reportTypeConfirmedTestWeight")
        try container.encode(
            reportTypeConfirmedClinicalDiagnosisWeight, forKey: "reportTypeConfirmedClinicalDiagnosisWeight")
        try container.encode(reportTypeSelfReportedWeight, forKey: "reportTypeSelfReportedWeight")
        try container.encode(reportTypeRecursiveWeight, forKey: "reportTypeRecursiveWeight")
        try container.encode(reportTypeNoneMap.rawValue, forKey: "reportTypeNoneMap")
        try container.encode(daysSinceLastExposureThreshold, forKey: "daysSinceLastExposureThreshold")
        try container.encodeIfPresent(metadataValues, forKey: "metadata")
    }

    /// Decodes and validates a configuration from the server's JSON.
    ///
    /// - Throws: ``ENError/Code/badFormat`` when the data is not a JSON object, ``ENError/Code/badParameter``
    ///   naming the property when a value has the wrong type or is out of range.
    public init(jsonData: Data) throws(ENError) {
        do {
            self = try JSONDecoder().decode(Self.self, from: jsonData)
        } catch let error as ENError {
            throw error
        } catch let DecodingError.typeMismatch(_, context) where context.codingPath.isEmpty {
            throw .badFormat("exposure configuration must be a JSON object")
        } catch {
            throw .badFormat("exposure configuration is not valid JSON: \(error.localizedDescription)")
        }
    }

    /// The key of ``ENDaysSinceOnsetOfSymptomsUnknown`` in the server JSON: `"unknown"`.
    public static let unknownDayKey = "unknown"
}

/// A JSON key of the configuration object.
private struct ConfigurationKey: CodingKey, ExpressibleByStringLiteral {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init(stringLiteral value: String) { stringValue = value }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Reads one property at a time, turning decoding failures into ``ENError``s that name the property.
private struct FieldReader {
    let container: KeyedDecodingContainer<ConfigurationKey>

    func decode<T: Decodable>(_ type: T.Type, _ name: String, expected: String) throws(ENError) -> T {
        do {
            return try container.decode(T.self, forKey: ConfigurationKey(name))
        } catch {
            throw .badParameter("\(name) must be \(expected)", context: .init(field: name))
        }
    }

    func optional<T: Decodable>(_ type: T.Type, _ name: String, expected: String) throws(ENError) -> T? {
        guard container.contains(ConfigurationKey(name)) else { return nil }
        return try decode(T?.self, name, expected: expected)
    }

    func double(_ name: String, _ assign: (Double) -> Void) throws(ENError) {
        if let value = try optional(Double.self, name, expected: "a number") { assign(value) }
    }

    func integer(_ name: String) throws(ENError) -> Int? {
        try optional(Int.self, name, expected: "an integer")
    }

    func integers(_ name: String) throws(ENError) -> [Int]? {
        try optional([Int].self, name, expected: "an array of integers")
    }

    func levels(_ name: String, legacy: String) throws(ENError) -> [ENRiskLevelValue]? {
        let key: String
        let values: [Int]
        if let current = try integers(name) {
            (key, values) = (name, current)
        } else if let earlier = try integers(legacy) {
            (key, values) = (legacy, earlier)
        } else {
            return nil
        }
        var levels: [ENRiskLevelValue] = []
        for value in values {
            guard let level = ENRiskLevelValue(exactly: value), Int(level) <= ENRiskLevelValueMax else {
                throw .badParameter(
                    "\(key) entries must be 0...\(ENRiskLevelValueMax), got \(value)", context: .init(field: key))
            }
            levels.append(level)
        }
        return levels
    }

    func infectiousnessMap(_ name: String) throws(ENError) -> [Int: Int]? {
        guard let raw = try optional([String: Int].self, name, expected: "an object of day strings to 0...2")
        else { return nil }
        var map: [Int: Int] = [:]
        for (key, value) in raw.sorted(by: { $0.key < $1.key }) {
            let day: Int
            if key == ENExposureConfiguration.unknownDayKey {
                day = ENDaysSinceOnsetOfSymptomsUnknown
            } else if let number = Int(key) {
                day = number
            } else {
                throw .badParameter(
                    "\(name) key \"\(key)\" is neither a day number -14...14 nor \"unknown\"",
                    context: .init(field: name))
            }
            guard UInt32(exactly: value).flatMap(ENInfectiousness.init(rawValue:)) != nil else {
                throw .badParameter(
                    "\(name)[\"\(key)\"] must be 0 (none), 1 (standard) or 2 (high), got \(value)",
                    context: .init(field: name))
            }
            map[day] = value
        }
        return map
    }
}
