import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import Foundation
import Testing

/// A signing key rotated on a running exporter: each file carries the signatures of the keys active when it is
/// exported, newest first (Google's `LookupSignatureInfos`: `thru_timestamp IS NULL OR thru_timestamp >= now`,
/// `ORDER BY id DESC`), so phones trusting the old key (Android's rule: any trusted signature) and phones trusting
/// the new one (either rule) both verify the overlap; iOS's rule (the first signature) needs the new key there.
@Suite("Key server: signing-key rotation")
struct SigningKeyRotationTests {
    @Test("before, during and after the overlap: the active keys sign, newest first; both kinds of phone verify")
    func rotation() async throws {
        let (old, new) = (try P256SigningKey(), try P256SigningKey())
        let overlapStart = referenceDate.addingTimeInterval(86_400)
        let overlapEnd = referenceDate.addingTimeInterval(2 * 86_400)
        let test = try TestServer(signers: [
            ENExportSigner(signingKey: new, keyID: "310", keyVersion: "v2", activeFrom: overlapStart),
            ENExportSigner(signingKey: old, keyID: "310", keyVersion: "v1", activeUntil: overlapEnd),
        ])
        func phone(
            trusting key: P256SigningKey, version: String, rule: ENExportVerifier.Rule = .anyTrustedSignature
        ) throws -> ENExportVerifier {
            ENExportVerifier(
                trustedKeys: [ENExportVerificationKey(keyID: "310", keyVersion: version, publicKey: try key.publicKey)],
                rule: rule)
        }
        let (oldPhone, newPhone) = (try phone(trusting: old, version: "v1"), try phone(trusting: new, version: "v2"))
        let (oldIPhone, newIPhone) = (
            try phone(trusting: old, version: "v1", rule: .firstSignature),
            try phone(trusting: new, version: "v2", rule: .firstSignature)
        )
        var published: [(versions: [String?], old: Bool, new: Bool)] = []
        var iPhones: [(old: Bool, new: Bool)] = []
        // Exports on days 0 (old key only), 1 and 2 (both: the overlap, its end inclusive), and 3 (new key only).
        for (day, moment) in [0, 86_400, 2 * 86_400, 3 * 86_400 + 1].enumerated() {
            test.clock.set(referenceDate.addingTimeInterval(TimeInterval(moment)))
            try await test.server.postDiagnosisKeys([
                makeKey(day + 1, start: today.adding(144 * (day - 2)))
            ])
            let file = try #require(try await test.server.publish().first, "day \(day)")
            let archive = try ENExportArchive(data: file.data)
            let signatures = try archive.signatures()
            published.append(
                (
                    signatures.map(\.signatureInfo?.verificationKeyVersion),
                    try oldPhone.verify(archive).isVerified, try newPhone.verify(archive).isVerified
                ))
            iPhones.append((try oldIPhone.verify(archive).isVerified, try newIPhone.verify(archive).isVerified))
            // What a file says of its signers is the same in export.bin.
            #expect(
                try archive.keyExport().signatureInfos.map(\.verificationKeyVersion)
                    == signatures.map(\.signatureInfo?.verificationKeyVersion))
        }
        #expect(published.map(\.versions) == [["v1"], ["v2", "v1"], ["v2", "v1"], ["v2"]])
        #expect(published.map(\.old) == [true, true, true, false])
        #expect(published.map(\.new) == [false, true, true, true])
        // The first signature alone: the old key until the overlap, the new key from it.
        #expect(iPhones.map(\.old) == [true, false, false, false])
        #expect(iPhones.map(\.new) == [false, true, true, true])
        // index.txt lists every file, the old ones still valid for phones trusting the old key.
        #expect(try await test.server.files(startingAt: 0).count == 4)
    }

    @Test("no active key: the export is refused and the batch kept for later; more than ten keys are refused")
    func noActiveKey() async throws {
        let key = try P256SigningKey()
        let test = try TestServer(signers: [
            ENExportSigner(
                signingKey: key, keyID: "310", keyVersion: "v3", activeFrom: referenceDate.addingTimeInterval(3600))
        ])
        try await test.server.postDiagnosisKeys([makeKey(1, start: today.adding(-144))])
        do {
            _ = try await test.server.publish()
            Issue.record("an export with no active key should fail")
        } catch {
            #expect(error.code == .badParameter)
            #expect(error.description.contains("no signing key is active"), "\(error)")
        }
        // Once the key is active the waiting keys are exported, nothing lost.
        test.clock.advance(by: 3600)
        let file = try #require(try await test.server.publish().first)
        #expect(try contents(of: file).keys.count == 1)

        let eleven = try TestServer(
            signers: (0..<11).map { index in
                ENExportSigner(signingKey: key, keyID: "310", keyVersion: "v\(index)")
            })
        await #expect(throws: ENError(.badParameter)) { _ = try await eleven.server.publish() }
    }
}
