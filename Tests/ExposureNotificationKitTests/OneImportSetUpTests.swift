// Only the app's import (and the test's): `import ExposureNotificationKit` alone sets up the environment.
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

@Suite("One import sets it up: trusted keys from a PEM or a raw public key with ExposureNotificationKit alone")
struct OneImportSetUpTests {
    static let pem = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEml59itec9qzwVojreLXdPNRsUWzf
        YHc1cKvIIi6/H56AJS/kZEYQnfDpxrgyGhdAm+pNN2GAJ3XdnQZ1Sk4amg==
        -----END PUBLIC KEY-----
        """

    /// The key's point without the SubjectPublicKeyInfo header: `x || y`, CryptoKit's raw representation.
    static var raw: Data {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Data(base64Encoded: body)!.suffix(64)
    }

    /// Detects in the ENS example file (signed by key "some_id" version "1") with `trustedKeys`.
    func detect(trusting trustedKeys: [ENExportVerificationKey]) async throws -> ENExposureDetectionSummary {
        var environment = Fixture().environment()
        environment.trustedKeys = trustedKeys
        let manager = ENManager(environment: environment)
        manager.dispatchQueue = DispatchQueue(label: "test handlers")
        defer { manager.invalidate() }
        try await manager.activate()
        try await manager.setExposureNotificationEnabled(true)
        return try await manager.detectExposures(
            configuration: ENExposureConfiguration(),
            diagnosisKeyURLs: [try Fixtures.url("export/ens-example/testExport-2-records-1-of-1.zip")])
    }

    @Test("a PEM key, a base64 key and a raw key verify the health authority's file; another key does not")
    func trustedKeys() async throws {
        let pem = try ENExportVerificationKey(keyID: "some_id", keyVersion: "1", pemRepresentation: Self.pem)
        let raw = try ENExportVerificationKey(keyID: "some_id", keyVersion: "1", rawRepresentation: Self.raw)
        let body = Self.pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let base64 = try ENExportVerificationKey(keyID: "some_id", keyVersion: "1", base64SubjectPublicKeyInfo: body)
        for key in [pem, raw, base64] {
            #expect(try await detect(trusting: [key]).matchedKeyCount == 0)
        }
        await #expect(throws: ENError(.badFormat)) {
            _ = try await detect(trusting: [
                try ENExportVerificationKey(keyID: "other_id", keyVersion: "1", pemRepresentation: Self.pem)
            ])
        }
    }

    @Test("a raw key of the wrong length or text that is no PEM key is an error")
    func badKeys() {
        #expect(throws: ENError.self) {
            try ENExportVerificationKey(keyID: "310", keyVersion: "v1", rawRepresentation: Data(count: 63))
        }
        #expect(throws: ENError.self) {
            try ENExportVerificationKey(keyID: "310", keyVersion: "v1", pemRepresentation: "not a key")
        }
    }
}
