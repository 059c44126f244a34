import ENCore
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENSimulator
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

@Suite("Detection on files published by ENKeyServer")
struct KeyServerDetectionTests {
    @Test("a device detects on the key server's files, and a revision published by the server wins")
    func revisionPublishedByTheServerWins() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let keys = try await scenario.releasedKeys(reportType: .selfReported)
        let serverTime = DetectionScenario.encounterStart.addingTimeInterval(3_600)
        let server = ENDiagnosisKeyServer(
            storage: try ENKeyServerSQLiteStore(),
            configuration: ENKeyServerConfiguration(
                region: "310",
                signers: [ENExportSigner(signingKey: scenario.signingKey, keyID: "310", keyVersion: "v1")]),
            clock: { serverTime })

        #expect(try await server.postDiagnosisKeys(keys).accepted == keys.count)
        let first = try await server.publish()
        // Confirmed by a test later: the same keys re-posted with another report type.
        #expect(try await server.postDiagnosisKeys(keys.map { $0.reported(as: .confirmedTest) }).revised == keys.count)
        let second = try await server.publish()
        #expect(first.count == 1 && second.count == 1)

        // The device downloads every file from index 0, as the sample app does.
        var urls: [URL] = []
        for file in try await server.files(startingAt: 0) {
            let url = scenario.directory.url.appendingPathComponent(file.name)
            try file.data.write(to: url)
            urls.append(url)
        }
        #expect(urls.count == 2)
        scenario.detectAt()
        let summary = try await scenario.detect(urls)
        let windows = try await scenario.manager.getExposureWindows(summary: summary)
        #expect(!windows.isEmpty)
        #expect(Set(windows.map(\.diagnosisReportType)) == [.confirmedTest])
    }
}
