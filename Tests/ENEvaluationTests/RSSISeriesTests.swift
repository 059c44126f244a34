import ENCore
import ENEvaluation
import ENRiskV2
import ENTestSupport
import Foundation
import Testing

/// `rssiSeries` observations: samples fall into the scans of a scan model, then become windows by the package's
/// own scan and window rules (one scan per UTC minute; 120 s for a key's first scan, then the minutes since the
/// previous one, at most 300 s).
@Suite("rssiSeries observations")
struct RSSISeriesTests {
    /// 2020-09-13 12:27:00 UTC, on a minute boundary.
    static let start = 1_600_000_020.0

    /// A file with one rssiSeries encounter sampled once per second at the given offsets.
    func file(_ offsets: [Int], rssi: Int = -60, calibrated: Bool = false) -> Data {
        let samples = offsets.map { "{\"t\": \(Self.start + Double($0)), \"rssi\": \(rssi)}" }.joined(separator: ",")
        return EvaluationTestData.file(
            """
            {"id": "series", "groundTruth": {"distanceMeters": 1, "durationSeconds": 900},
             "observation": {"kind": "rssiSeries", "rssiCalibrated": \(calibrated), "txPower": -10,
                             "rssiCorrection": 5, "samples": [\(samples)]}}
            """)
    }

    func windows(_ data: Data, model: ENScanModel = .periodic(interval: 300, duration: 4)) throws -> [ENObservedWindow]
    {
        let set = try ENLabelledEncounterSet(jsonData: data, scanModel: model)
        guard case .exposureWindows(let windows) = set.encounters.first?.observation else {
            Issue.record("no windows")
            return []
        }
        return windows
    }

    @Test("the example's three samples fall in one scan: attenuations 59, 66, 55 → minimum 55, typical 60")
    func example() throws {
        let set = try ENLabelledEncounterSet(
            jsonData: try Fixtures.data("evaluation/example-encounters.json"),
            scanModel: .periodic(interval: 300, duration: 4))
        let encounter = try #require(set.encounters.first { $0.id == "rssi-1" })
        guard case .exposureWindows(let windows) = encounter.observation else {
            Issue.record("not windows")
            return
        }
        // txPower -20, correction 5: -20 - (-84 + 5) = 59, -20 - (-91 + 5) = 66, -20 - (-80 + 5) = 55.
        #expect(
            windows.map(\.scanInstances) == [
                [ENScanInstance(minimumAttenuation: 55, typicalAttenuation: 60, secondsSinceLastScan: 120)]
            ])
        #expect(windows.first?.date == ISO8601DateFormatter().date(from: "2020-07-30T00:00:00Z"))
    }

    @Test("15 minutes of samples, a scan every 300 s: three scans, 120 + 300 + 300 s at -10 - (-60 + 5) = 45 dB")
    func steady() throws {
        let scans = try windows(file(Array(0..<900))).flatMap(\.scanInstances)
        #expect(
            scans == [
                ENScanInstance(minimumAttenuation: 45, typicalAttenuation: 45, secondsSinceLastScan: 120),
                ENScanInstance(minimumAttenuation: 45, typicalAttenuation: 45, secondsSinceLastScan: 300),
                ENScanInstance(minimumAttenuation: 45, typicalAttenuation: 45, secondsSinceLastScan: 300),
            ])
        // Calibrated samples already include the correction: -10 - (-60) = 50.
        let calibrated = try windows(file(Array(0..<900), calibrated: true)).flatMap(\.scanInstances)
        #expect(calibrated.map(\.typicalAttenuation) == [50, 50, 50])
    }

    @Test("a scan that hears nothing is not logged; the next one stands for at most 300 s")
    func gap() throws {
        let scans = try windows(file(Array(0..<100) + Array(590..<700))).flatMap(\.scanInstances)
        #expect(scans.map(\.secondsSinceLastScan) == [120, 300])
        // A model that never listens while the device is heard records nothing.
        #expect(try windows(file(Array(0..<900)), model: ENScanModel { _, _ in [] }).isEmpty)
    }

    @Test("bad samples are bad input naming the encounter and the sample")
    func badInput() throws {
        let decreasing = EvaluationTestData.file(
            """
            {"id": "back", "groundTruth": {"distanceMeters": 1},
             "observation": {"kind": "rssiSeries", "txPower": -10,
                             "samples": [{"t": 1600000100, "rssi": -60}, {"t": 1600000099, "rssi": -60}]}}
            """)
        let noTxPower = EvaluationTestData.file(
            """
            {"id": "notx", "groundTruth": {"distanceMeters": 1},
             "observation": {"kind": "rssiSeries", "samples": [{"t": 1600000100, "rssi": -60}]}}
            """)
        let loud = EvaluationTestData.file(
            """
            {"id": "loud", "groundTruth": {"distanceMeters": 1},
             "observation": {"kind": "rssiSeries", "txPower": -10, "samples": [{"t": 1600000100, "rssi": 90}]}}
            """)
        for (data, section, field) in [
            (decreasing, "encounter back", "samples[1]"), (noTxPower, "encounter notx", "txPower"),
            (loud, "encounter loud", "samples[0].rssi"),
        ] {
            do {
                _ = try ENLabelledEncounterSet(jsonData: data, scanModel: .periodic(interval: 300, duration: 4))
                Issue.record("accepted \(section)")
            } catch {
                #expect(error.code == .badFormat)
                #expect(error.context.section == section)
                #expect(error.context.field?.contains(field) == true, "\(String(describing: error.context.field))")
            }
        }
    }
}
