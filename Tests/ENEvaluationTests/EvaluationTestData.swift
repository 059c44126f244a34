import ENCore
import ENEvaluation
import ENTestSupport
import Foundation

/// Shared helpers: the configuration fixtures and hand-written encounter files.
enum EvaluationTestData {
    static let configurationNames = [
        "cwa-2020-06-22.v1", "cwa-2020-06-22.v2-approximation", "cwa-2020-11-23.exposure-windows",
        "cwa-2021-03-18.exposure-windows", "cwa-2021-04-15.exposure-windows", "immuni-2020-06-22.v1",
        "lfph-narrow-net-v2-2021-12.v2", "lfph-narrower-net-2020-11.v2", "lfph-wide-net-2021-12.v2",
        "lfph-wider-net-2020-11.v2", "swisscovid-2020-06-25.v1", "swisscovid-2020-06-25.v2",
        "swisscovid-2020-07-06.v2", "swisscovid-2020-09-11.v2",
    ]

    static func configuration(_ name: String) throws -> ENEvaluationConfiguration {
        try ENEvaluationConfiguration(
            jsonData: Fixtures.data("evaluation/configs/\(name).json"), file: "\(name).json")
    }

    /// The example file's encounters, without the rssiSeries one (refused until the simulator's scan model exists).
    static func exampleEncounters() throws -> [String: ENLabelledEncounter] {
        let data = try Fixtures.data("evaluation/example-encounters.json")
        var object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let encounters = object["encounters"] as! [[String: Any]]
        object["encounters"] = encounters.filter { $0["id"] as? String != "rssi-1" }
        let set = try ENLabelledEncounterSet(jsonData: try JSONSerialization.data(withJSONObject: object))
        return Dictionary(uniqueKeysWithValues: set.encounters.map { ($0.id, $0) })
    }

    /// An encounter file around the given encounter JSON texts.
    static func file(_ encounters: String...) -> Data {
        Data(
            """
            {"format": "gaen-labelled-encounters", "version": 1, "dataset": {"name": "test"},
             "encounters": [\(encounters.joined(separator: ","))]}
            """.utf8)
    }

    /// A histogram encounter with 1-minute-per-bin semantics from (lo, hi, minutes) triples.
    static func histogram(id: String, meters: Double, bins: [(Int, Int, Double)], duration: String = "null") -> String {
        let binText = bins.map { "{\"lo\": \($0.0), \"hi\": \($0.1), \"value\": \($0.2)}" }.joined(separator: ",")
        return """
            {"id": "\(id)", "groundTruth": {"distanceMeters": \(meters), "durationSeconds": \(duration)},
             "observation": {"kind": "attenuationHistogram", "bins": [\(binText)]}}
            """
    }

    static let now = ISO8601DateFormatter().date(from: "2021-06-15T12:00:00Z")!
}
