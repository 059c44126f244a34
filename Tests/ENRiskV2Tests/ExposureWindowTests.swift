import ENCore
import ENRiskV2
import Foundation
import Testing

@Suite("Exposure windows from matched sightings")
struct ExposureWindowTests {
    @Test("A scan at 1800 s after the window's first scan starts a new window; 1799 s does not")
    func splitEdge() {
        let configuration = standardConfiguration()
        let within = ENKeyMatch(
            key: key(), sightings: [sighting(at: day0, rssi: -50), sighting(at: day0 + 1799, rssi: -50)])
        #expect(ENScoringV2.exposureWindows(from: within, configuration: configuration).count == 1)
        let beyond = ENKeyMatch(
            key: key(), sightings: [sighting(at: day0, rssi: -50), sighting(at: day0 + 1800, rssi: -50)])
        let windows = ENScoringV2.exposureWindows(from: beyond, configuration: configuration)
        #expect(windows.count == 2)
        #expect(windows.map(\.scanInstances.count) == [1, 1])
    }

    @Test("45 minutes of sightings every minute split at 30 minutes")
    func splitAtThirtyMinutes() {
        let sightings = (0..<45).map { sighting(at: day0 + Double($0 * 60), rssi: -60) }
        let windows = ENScoringV2.exposureWindows(
            from: [ENKeyMatch(key: key(), sightings: sightings)], configuration: standardConfiguration())
        #expect(windows.map(\.scanInstances.count) == [30, 15])
        // The key's first scan stands for 120 s, later ones for the minute since the previous scan, also
        // across the window boundary.
        #expect(windows[0].scanInstances.map(\.secondsSinceLastScan) == [120] + Array(repeating: 60, count: 29))
        #expect(windows[1].scanInstances.map(\.secondsSinceLastScan) == Array(repeating: 60, count: 15))
    }

    @Test("Sightings in one minute merge into one scan: minimum and rounded mean attenuation")
    func scanMerging() {
        // txPower 0: attenuation = -rssi. 40, 45, 46 -> mean 43.67 -> 44, minimum 40.
        // Then a gap of 7 minutes -> 300 s (capped); txPower below RSSI clamps the attenuation at 0.
        let match = ENKeyMatch(
            key: key(),
            sightings: [
                sighting(at: day0 + 5, rssi: -45), sighting(at: day0 + 10, rssi: -40),
                sighting(at: day0 + 59, rssi: -46, confidence: .low),
                sighting(at: day0 + 7 * 60 + 1, rssi: -5, txPower: -10),
                sighting(at: day0 + 8 * 60, rssi: -41), sighting(at: day0 + 8 * 60 + 30, rssi: -42),
            ])
        let windows = ENScoringV2.exposureWindows(from: match, configuration: standardConfiguration())
        #expect(windows.count == 1)
        #expect(
            windows[0].scanInstances == [
                ENScanInstance(minimumAttenuation: 40, typicalAttenuation: 44, secondsSinceLastScan: 120),
                ENScanInstance(minimumAttenuation: 0, typicalAttenuation: 0, secondsSinceLastScan: 300),
                ENScanInstance(minimumAttenuation: 41, typicalAttenuation: 42, secondsSinceLastScan: 60),  // 41.5 -> 42
            ])
        #expect(windows[0].calibrationConfidence == .low)
    }

    @Test("Window fields: UTC date of the first scan, mapped report type, infectiousness, variant")
    func windowFields() {
        var configuration = ENExposureConfiguration()
        configuration.infectiousnessByDaysSinceOnsetOfSymptoms = [
            2: .high, ENDaysSinceOnsetOfSymptomsUnknown: .standard,
        ]
        configuration.reportTypeNoneMap = .selfReported
        let lateEvening = day0 + 86_400 - 300  // 23:55 UTC; the window runs past midnight
        let sightings = (0..<10).map { sighting(at: lateEvening + Double($0 * 60), rssi: -50) }
        let high = ENScoringV2.exposureWindows(
            from: ENKeyMatch(key: key(reportType: .unknown, daysSinceOnset: 2, variant: .type2), sightings: sightings),
            configuration: configuration)
        #expect(high.count == 1)
        #expect(high[0].date == day0)
        #expect(high[0].diagnosisReportType == .selfReported)
        #expect(high[0].infectiousness == .high)
        #expect(high[0].variantOfConcernType == .type2)
        let unknownOnset = ENScoringV2.exposureWindows(
            from: ENKeyMatch(
                key: key(reportType: .confirmedClinicalDiagnosis, daysSinceOnset: ENDaysSinceOnsetOfSymptomsUnknown),
                sightings: sightings),
            configuration: configuration)
        #expect(unknownOnset.map(\.infectiousness) == [.standard])
        #expect(unknownOnset.map(\.diagnosisReportType) == [.confirmedClinicalDiagnosis])
    }

    @Test("Revoked keys, infectiousness none and unmapped report types give no window")
    func noWindows() {
        var configuration = ENExposureConfiguration()
        configuration.infectiousnessByDaysSinceOnsetOfSymptoms = [0: .standard]
        let sightings = [sighting(at: day0, rssi: -50)]
        #expect(
            ENScoringV2.exposureWindows(
                from: ENKeyMatch(key: key(reportType: .revoked), sightings: sightings), configuration: configuration
            ).isEmpty)
        #expect(
            ENScoringV2.exposureWindows(
                from: ENKeyMatch(key: key(daysSinceOnset: 5), sightings: sightings), configuration: configuration
            ).isEmpty)
        configuration.reportTypeNoneMap = .unknown
        #expect(
            ENScoringV2.exposureWindows(
                from: ENKeyMatch(key: key(reportType: .unknown), sightings: sightings), configuration: configuration
            ).isEmpty)
        #expect(
            ENScoringV2.exposureWindows(from: ENKeyMatch(key: key(), sightings: []), configuration: configuration)
                .isEmpty)
    }

    @Test("Unknown transmit power gives attenuation 255, the 'other' bucket")
    func unknownTxPower() {
        let windows = ENScoringV2.exposureWindows(
            from: ENKeyMatch(key: key(), sightings: [sighting(at: day0, rssi: -50, txPower: nil)]),
            configuration: standardConfiguration())
        #expect(windows.first?.scanInstances.first?.typicalAttenuation == 255)
    }
}
