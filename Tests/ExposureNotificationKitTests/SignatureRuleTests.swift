import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

/// `ENEnvironment.signatureRule` during a signing-key rotation: a health authority's file signed by its new key
/// first and its old key second (as Google's server writes files while both keys are active). A phone that trusts
/// only the old key refuses it with iOS's rule (the first signature decides) and detects with Android's (any
/// trusted signature); a phone that trusts the new key detects with either.
@Suite("ENManager: the signature rule of a key-rotation overlap")
struct SignatureRuleTests {
    /// The released keys in one zip signed by two keys: by `otherKey` (version `v2`) and then by the scenario's
    /// trusted key (`v1`), or, with `trustedFirst`, by the trusted key and then by `otherKey` (version `v0`).
    static func rotatedZip(
        _ scenario: DetectionScenario, newKey otherKey: P256SigningKey, trustedFirst: Bool = false
    ) async throws -> URL {
        try scenario.encounter()
        let keys = try await scenario.releasedKeys()
        let start = UInt64(DetectionScenario.encounterStart.timeIntervalSince1970)
        let trusted = ENExportSigner(signingKey: scenario.signingKey, keyID: "310", keyVersion: "v1")
        let signers =
            trustedFirst
            ? [trusted, ENExportSigner(signingKey: otherKey, keyID: "310", keyVersion: "v0")]
            : [ENExportSigner(signingKey: otherKey, keyID: "310", keyVersion: "v2"), trusted]
        // export.bin lists both signature infos, as Google's server writes them (Android's rule counts them).
        let export = ENKeyExport(
            startTimestamp: start, endTimestamp: start + 7200, region: "310", batchNumber: 1, batchSize: 1,
            signatureInfos: signers.map(\.signatureInfo), keys: keys)
        let archive = try ENExportWriter.sign(export, with: signers)
        let url = scenario.directory.url.appendingPathComponent("rotated.zip")
        try archive.write(to: url)
        scenario.detectAt()
        return url
    }

    @Test("iOS's rule (the default) refuses the file when only the old key is trusted, and stores nothing")
    func iOSRuleNeedsTheFirstSignature() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        #expect(scenario.environment.signatureRule == .firstSignature)
        let url = try await Self.rotatedZip(scenario, newKey: try P256SigningKey())
        let before = try scenario.recordCounts()
        let error = await expectENError(.badFormat) { _ = try await scenario.detect([url]) }
        #expect(error?.context.file == url.path)
        #expect(try scenario.recordCounts() == before)
    }

    @Test("Android's rule verifies the file by the old key's signature and detects the exposure")
    func androidRuleAcceptsAnyTrustedSignature() async throws {
        let scenario = try await DetectionScenario(signatureRule: .anyTrustedSignature)
        defer { scenario.directory.cleanUp() }
        let url = try await Self.rotatedZip(scenario, newKey: try P256SigningKey())
        let summary = try await scenario.detect([url])
        let windows = try await scenario.manager.getExposureWindows(summary: summary)
        #expect(!windows.isEmpty)
        #expect(!summary.daySummaries.isEmpty)
    }

    @Test(
        "a phone trusting the key that signed first detects with either rule",
        arguments: [
            ENExportVerifier.Rule.firstSignature, .anyTrustedSignature,
        ])
    func newKeyVerifiesWithEitherRule(rule: ENExportVerifier.Rule) async throws {
        let scenario = try await DetectionScenario(signatureRule: rule)
        defer { scenario.directory.cleanUp() }
        let url = try await Self.rotatedZip(scenario, newKey: try P256SigningKey(), trustedFirst: true)
        let summary = try await scenario.detect([url])
        #expect(!summary.daySummaries.isEmpty)
    }

    @Test("Android's rule still refuses a file no trusted key signed")
    func androidRuleRefusesUntrustedFiles() async throws {
        let scenario = try await DetectionScenario(trusted: false, signatureRule: .anyTrustedSignature)
        defer { scenario.directory.cleanUp() }
        let url = try await Self.rotatedZip(scenario, newKey: try P256SigningKey())
        let error = await expectENError(.badFormat) { _ = try await scenario.detect([url]) }
        #expect(error?.context.file == url.path)
    }
}
