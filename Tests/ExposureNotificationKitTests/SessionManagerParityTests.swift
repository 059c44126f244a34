import ENCore
import ENExportFormat
import ENSimulator
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

/// The session and the manager on the same device and the same keys.
@Suite("ENExposureDetectionSession and ENManager")
struct SessionManagerParityTests {
    @Test("the session pages the infos and gives the summary of ENManager's version 1 detection on the same keys")
    func sameAsManager() async throws {
        let scenario = try await DetectionScenario(apiVersion: .version1)
        defer { scenario.directory.cleanUp() }
        // The other device's broadcast for 20 minutes, and two more keys heard earlier that day (made with ENCrypto).
        try scenario.encounter()
        let heard = try [Encounter.key(transmissionRiskLevel: 2), Encounter.key(transmissionRiskLevel: 6)]
        for (index, key) in heard.enumerated() {
            for sighting in try Encounter.sightings(
                of: key, from: Encounter.time(hour: 7 + index), minutes: 9 + 5 * index, rssi: Int8(-55 - 10 * index))
            {
                scenario.me.radio.hear(sighting)
            }
        }
        let keys = try await scenario.releasedKeys() + heard + [try Encounter.key()]
        let zip = try scenario.writeZip(keys, name: "keys.zip")
        scenario.detectAt()
        let configuration = DetectionScenario.configuration

        let summary = try await scenario.manager.detectExposures(
            configuration: configuration, diagnosisKeyURLs: [zip])
        let infos = try await scenario.manager.getExposureInfo(summary: summary, userExplanation: "exposed")
        #expect(infos.count == 3)
        #expect(summary.matchedKeyCount == 3)

        // The same keys, as the file holds them, handed to a session in batches of 2.
        let session = ENExposureDetectionSession(environment: scenario.manager.environment)
        session.dispatchQueue = DispatchQueue(label: "parity session")
        session.configuration = configuration
        try await session.activate()
        var chunks = try ENExportArchive(contentsOf: zip).keyScanner().chunks(ofSize: 2, in: .keys, invalidKeys: .skip)
        var batches = 0
        while let batch = try chunks.next() {
            try await session.addDiagnosisKeys(batch)
            batches += 1
        }
        #expect(batches == (keys.count + 1) / 2)
        let sessionSummary = try await session.finishedDiagnosisKeys()
        var sessionInfos: [ENExposureInfo] = []
        while true {
            let page = try await session.getExposureInfo(withMaximumCount: 1)
            sessionInfos += page.exposureInfo
            if page.done { break }
        }
        #expect(sessionInfos == infos)
        #expect(sessionSummary == summary)
        #expect(sessionSummary.daySummaries.isEmpty)
        // The session's summary belongs to no manager.
        await #expect(throws: ENError(.badParameter)) {
            _ = try await scenario.manager.getExposureInfo(summary: sessionSummary, userExplanation: "")
        }
        session.invalidate()
    }
}
