import ENCore
import Foundation
import Testing

/// The members of `ENExposureConfiguration` that Apple declares as `[NSNumber: NSNumber]` and `[AnyHashable: Any]?`
/// take those shapes (with `NSNumber` become a Swift number type), beside their typed forms.
@Suite("ENExposureConfiguration in Apple's shapes")
struct ExposureConfigurationAppleShapeTests {
    @Test("The infectiousness map is [Int: Int] of raw values, the typed view reads and writes the same data")
    func infectiousnessMap() throws {
        var configuration = ENExposureConfiguration()
        // The seed sample's code with `as [NSNumber: NSNumber]` become `as [Int: Int]`.
        var days = [Int: Int]()
        days[ENDaysSinceOnsetOfSymptomsUnknown] = 1
        days[0] = 2
        days[-3] = 0
        configuration.infectiousnessForDaysSinceOnsetOfSymptoms = days as [Int: Int]
        try configuration.validate()
        #expect(
            configuration.infectiousnessByDaysSinceOnsetOfSymptoms
                == [ENDaysSinceOnsetOfSymptomsUnknown: .standard, 0: .high, -3: .none])

        configuration.infectiousnessByDaysSinceOnsetOfSymptoms = [5: .high]
        #expect(configuration.infectiousnessForDaysSinceOnsetOfSymptoms == [5: 2])
    }

    @Test("A value that is not an infectiousness is refused naming the map", arguments: [3, -1, 1 << 40])
    func badInfectiousness(value: Int) {
        var configuration = ENExposureConfiguration()
        configuration.infectiousnessForDaysSinceOnsetOfSymptoms = [0: 1, 2: value]
        #expect(configuration.infectiousnessByDaysSinceOnsetOfSymptoms == [0: .standard])
        let error = #expect(throws: ENError.self) { try configuration.validate() }
        #expect(error?.code == .badParameter)
        #expect(error?.context.field == "infectiousnessForDaysSinceOnsetOfSymptoms")
    }

    @Test("The sample app's metadata assignment compiles and reads back as it was written")
    func sampleMetadata() throws {
        var configuration = ENExposureConfiguration()
        let thresholds = [50, 70]
        configuration.metadata = ["attenuationDurationThresholds": thresholds]
        #expect(configuration.metadataValues == ["attenuationDurationThresholds": .array([.number(50), .number(70)])])
        let metadata = try #require(configuration.metadata)
        #expect(metadata["attenuationDurationThresholds"] as? [Int] == [50, 70])
        configuration.metadata = nil
        #expect(configuration.metadataValues == nil)
    }

    @Test("Every JSON-like value converts; other values are left out; keys become strings")
    func bridging() throws {
        var configuration = ENExposureConfiguration()
        let absent: Int? = nil
        let present: Int? = 4
        configuration.metadata = [
            "string": "text", "substring": "text"[...], "bool": true, "int8": Int8(-3), "uint64": UInt64(7),
            "double": 2.5, "float": Float(0.5), "decimal": Decimal(string: "1.25")!, "null": NSNull(),
            "numberBool": NSNumber(value: true), "numberInt": NSNumber(value: 42),
            "numberDouble": NSNumber(value: 0.25),
            "nested": ["a": [1, "b", false]] as [String: Any], "absent": absent as Any, "present": present as Any,
            "date": Date(timeIntervalSince1970: 0), 17: "key not a string",
        ]
        let values = try #require(configuration.metadataValues)
        #expect(values["string"] == .string("text"))
        #expect(values["substring"] == .string("text"))
        #expect(values["bool"] == .bool(true))
        #expect(values["int8"] == .number(-3))
        #expect(values["uint64"] == .number(7))
        #expect(values["double"] == .number(2.5))
        #expect(values["float"] == .number(0.5))
        #expect(values["decimal"] == .number(1.25))
        #expect(values["null"] == .null)
        #expect(values["numberBool"] == .bool(true))
        #expect(values["numberInt"] == .number(42))
        #expect(values["numberDouble"] == .number(0.25))
        #expect(values["nested"] == .object(["a": .array([.number(1), .string("b"), .bool(false)])]))
        #expect(values["absent"] == .null)
        #expect(values["present"] == .number(4))
        #expect(values["date"] == nil)
        #expect(values["17"] == .string("key not a string"))

        let read = try #require(configuration.metadata)
        #expect(read["double"] as? Double == 2.5)
        #expect(read["int8"] as? Int == -3)
        #expect(read["bool"] as? Bool == true)
        #expect(read["null"] is NSNull)
        let nested = try #require(read["nested"] as? [String: Any])
        let array = try #require(nested["a"] as? [Any])
        #expect(array.count == 3)
        #expect(array[1] as? String == "b")
    }

    @Test("Metadata set in Apple's shape survives the JSON round trip")
    func jsonRoundTrip() throws {
        var configuration = ENExposureConfiguration()
        configuration.metadata = ["region": "US", "thresholds": [50, 70]]
        let decoded = try ENExposureConfiguration(jsonData: JSONEncoder().encode(configuration))
        #expect(decoded == configuration)
        #expect(decoded.metadata?["thresholds"] as? [Int] == [50, 70])
    }

    @Test("metadata's attenuationDurationThresholds are honoured while the property holds its default, as iOS 13.5")
    func thresholdsFromMetadata() {
        var configuration = ENExposureConfiguration()
        configuration.metadata = ["attenuationDurationThresholds": [55, 63]]
        #expect(configuration.appliedAttenuationDurationThresholds == [55, 63])
        #expect(configuration.attenuationBucket(for: 52) == .immediate)
        #expect(configuration.attenuationBucket(for: 100) == .medium, "two thresholds: a third of 255")
        configuration.attenuationDurationThresholds = [40, 60]
        #expect(configuration.appliedAttenuationDurationThresholds == [40, 60], "the property wins when it is set")
        configuration.attenuationDurationThresholds = ENExposureConfiguration.defaultAttenuationDurationThresholds
        configuration.metadata = ["attenuationDurationThresholds": [55, "x"]]
        #expect(configuration.appliedAttenuationDurationThresholds == [50, 70, 90], "not numbers: the default")
    }
}
