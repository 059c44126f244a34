import ENCore
import ENKeyServer
import ENTestSupport
import Foundation
import Testing

@testable import ENFuzzTargets

/// The key server's fuzz targets: their seeds (`Fuzz/Corpus`, made by `Scripts/make-fuzz-seeds.py`) keep every rule,
/// and reach past the signature and the AES-GCM tag with the targets' fixed keys, so that the fuzzer starts from
/// inputs that are checked all the way.
@Suite("Key server fuzz targets")
struct KeyServerFuzzSeedTests {
    /// The files of `Fuzz/Corpus/TARGET` in the source tree.
    static func seeds(_ target: FuzzTarget) -> [URL] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/\(target.rawValue)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(
        "every seed keeps its target's rules",
        arguments: [FuzzTarget.publishRequest, .verificationCertificate, .revisionToken, .sightings])
    func seedsKeepTheRules(target: FuzzTarget) throws {
        let files = Self.seeds(target)
        #expect(files.count >= (target == .sightings ? 1 : 4))
        try FuzzRegressionTests.run(target, files)
    }

    @Test("the fixture certificate verifies with the target's keys, and a changed claim does not")
    func fixtureCertificateVerifies() throws {
        let fixture = try JSONSerialization.jsonObject(with: Fixtures.data("keyserver/verification-certificate.json"))
        let payload = try #require(((fixture as? [String: Any])?["request"] as? [String: Any])?["verificationPayload"])
        let text = try #require(payload as? String)
        let verifier = try #require(FuzzTarget.certificateVerifier)
        var request = FuzzTarget.certificateRequest
        request.verificationPayload = text
        let claims = try verifier.claims(of: request, at: FuzzTarget.certificateNow)
        #expect(claims == ENVerifiedClaims(reportType: .confirmedClinicalDiagnosis, symptomOnsetInterval: 2_963_520))
        #expect(try VerificationCertificate(text).signingInput == FuzzTarget.fixtureSigningInput)
        try FuzzTarget.verificationCertificate.run(Data(text.utf8))
        // One character of the claims changed: the signature no longer matches.
        var changed = Array(text)
        let dot = try #require(changed.firstIndex(of: "."))
        changed[dot + 5] = changed[dot + 5] == "A" ? "B" : "A"
        request.verificationPayload = String(changed)
        #expect(throws: ENError.self) { try verifier.claims(of: request, at: FuzzTarget.certificateNow) }
    }

    @Test("the seed tokens, sealed by Python with the target's keys, open to the fixture's keys")
    func seedTokensOpen() throws {
        let keys = try #require(FuzzTarget.revisionTokenKeys)
        let text = try String(
            contentsOf: #require(Self.seeds(.revisionToken).first { $0.lastPathComponent == "three-keys-kid1.txt" }),
            encoding: .utf8)
        guard case .success(let bytes) = GoBase64.decode(text) else {
            Issue.record("the seed token is not base64")
            return
        }
        let opened = try RevisionToken.open(bytes, with: keys)
        #expect(opened.map(\.intervalNumber) == [2_963_664, 2_963_520, 2_963_376])
        #expect(opened.allSatisfy { $0.keyData.count == 16 && $0.intervalCount == 144 })
        // Another key ID's key does not open it.
        var other = keys
        other.keys[1] = keys.keys[2]
        #expect(throws: ENError.self) { try RevisionToken.open(bytes, with: other) }
    }
}
