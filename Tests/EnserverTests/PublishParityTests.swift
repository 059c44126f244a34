import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import EnserverKit
import Foundation
import Testing

/// A verifier that claims the report type the request's verification payload names (`likely` or `confirmed`): the
/// certificate a health authority would issue, without the JWT.
private struct PayloadVerifier: ENPublishCertificateVerifier {
    func verify(_ request: ENPublishRequest, at date: Date) async throws(ENError) -> ENVerifiedClaims? {
        ENVerifiedClaims(
            reportType: request.verificationPayload == "confirmed" ? .confirmedTest : .confirmedClinicalDiagnosis)
    }
}

@Suite("One publish rule set: the in-process API and HTTP")
struct PublishParityTests {
    @Test("the same requests in process and over HTTP store the same keys and export the same files")
    func theSameRequestsGiveTheSameKeysAndFiles() async throws {
        let clock = ManualClock()
        let signingKey = try P256SigningKey()
        let configuration = ENKeyServerConfiguration(
            region: "US", signers: [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")],
            padding: nil)
        let onset = UInt32(ENIntervalNumber(date: startDate)) / 144 * 144 - 3 * 144
        let keys = (1...4).map { n in
            ENTemporaryExposureKey(
                keyData: Data(repeating: UInt8(n), count: 16),
                rollingStartNumber: ENIntervalNumber(date: startDate).rollingStart.adding(-144 * n),
                transmissionRiskLevel: UInt8(n), diagnosisReportType: .confirmedClinicalDiagnosis)
        }
        let revised = keys.prefix(2).map { key in
            var key = key
            key.diagnosisReportType = .confirmedTest
            return key
        }

        // In process: the trusted caller's keys carry their report type.
        let local = try ENKeyServerSQLiteStore(clock: { clock.now })
        let server = ENDiagnosisKeyServer(storage: local, configuration: configuration, clock: { clock.now })
        try await server.postDiagnosisKeys(keys, symptomOnsetInterval: onset)
        clock.advance(hours: 0.5)
        try await server.postDiagnosisKeys(revised, symptomOnsetInterval: onset)
        let localKeys = (try await local.diagnosisKeysAwaitingExport(), try await local.revisedKeysAwaitingExport())
        clock.advance(hours: 0.5)
        let localFiles = try await server.publish()

        // Over HTTP, through enserver's routes in process: the certificate claims the report type.
        clock.advance(hours: -1)
        let remote = try ENKeyServerSQLiteStore(clock: { clock.now })
        let handler = ENPublishHandler(
            storage: remote,
            configuration: ENPublishConfiguration(
                authorizedApps: [
                    ENPublishAuthorizedApp(healthAuthorityID: "com.example.app", verifier: PayloadVerifier())
                ],
                revisionTokenKeys: try ENRevisionTokenKeys.generate(), defaultRegion: "US"),
            clock: { clock.now })
        let exporter = ENKeyServerExporter(storage: remote, configuration: configuration, clock: { clock.now })
        try await KeyServerHTTP(exporter: exporter, publish: handler).withRoutes { client in
            let first = try await client.publish(
                PublishRequestBody(
                    keys: keys, healthAuthorityID: "com.example.app", symptomOnsetInterval: onset,
                    verificationPayload: "likely"
                ).json)
            #expect(first.status == 200, "\(first.text)")
            let token = try #require(try jsonObject(first.text)["revisionToken"] as? String)
            clock.advance(hours: 0.5)
            let second = try await client.publish(
                PublishRequestBody(
                    keys: Array(keys.prefix(2)), healthAuthorityID: "com.example.app",
                    symptomOnsetInterval: onset, verificationPayload: "confirmed", revisionToken: token
                ).json)
            #expect(second.status == 200, "\(second.text)")
        }
        let remoteKeys = (try await remote.diagnosisKeysAwaitingExport(), try await remote.revisedKeysAwaitingExport())
        clock.advance(hours: 0.5)
        let remoteFiles = try await exporter.publish()

        #expect(localKeys.0.count == 4 && localKeys.1.count == 2)
        #expect(localKeys.0 == remoteKeys.0)
        #expect(localKeys.1 == remoteKeys.1)
        #expect(localFiles.map(\.name) == remoteFiles.map(\.name))
        #expect(localFiles.count == 1)
        for (a, b) in zip(localFiles, remoteFiles) {
            // The signed bytes are the same; the signatures differ (ECDSA signs with a random nonce).
            #expect(try ENExportArchive(data: a.data).exportBinary == ENExportArchive(data: b.data).exportBinary)
        }
    }
}
