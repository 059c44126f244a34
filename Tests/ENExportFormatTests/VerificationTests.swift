import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

@Suite("Signature verification")
struct VerificationTests {
    static let signed = RealExportFile.all.filter { $0.publicKey != nil }

    func publicKey(_ path: String) throws -> P256VerifyingKey {
        try P256VerifyingKey(pemRepresentation: String(decoding: try Fixtures.data(path), as: UTF8.self))
    }

    @Test("every signed file verifies with its published key", arguments: signed)
    func verifiesWithPublishedKey(file: RealExportFile) throws {
        let archive = try ENExportArchive(data: try Fixtures.data(file.path))
        let key = try publicKey(try #require(file.publicKey))
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: nil, keyVersion: nil, publicKey: key)
        ])
        let result = try verifier.verify(archive)
        #expect(result.isVerified, "\(result)")
    }

    @Test("every signed file fails with every other published key", arguments: signed)
    func failsWithOtherKeys(file: RealExportFile) throws {
        let archive = try ENExportArchive(data: try Fixtures.data(file.path))
        let own = try publicKey(try #require(file.publicKey)).derRepresentation
        for path in RealExportFile.publicKeys {
            let other = try publicKey(path)
            guard try other.derRepresentation != own else { continue }
            let verifier = ENExportVerifier(trustedKeys: [
                ENExportVerificationKey(keyID: nil, keyVersion: nil, publicKey: other)
            ])
            let result = try verifier.verify(archive)
            guard case .signatureMismatch = result else {
                Issue.record("\(file.path) with \(path): \(result)")
                continue
            }
        }
    }

    @Test(
        "openssl agrees with the verifier on every signed file", .enabled(if: ExternalTool.openssl.isAvailable),
        arguments: signed)
    func opensslAgrees(file: RealExportFile) throws {
        let archive = try ENExportArchive(data: try Fixtures.data(file.path))
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bin = directory.appendingPathComponent("export.bin")
        let sig = directory.appendingPathComponent("sig.der")
        try archive.exportBinary.write(to: bin)
        try #require(try archive.signatures().first).signature.write(to: sig)
        for path in RealExportFile.publicKeys {
            let pem = try Fixtures.url(path).path
            let run = try ExternalTool.openssl.run([
                "dgst", "-sha256", "-verify", pem, "-signature", sig.path, bin.path,
            ])
            let verifier = ENExportVerifier(trustedKeys: [
                ENExportVerificationKey(keyID: nil, keyVersion: nil, publicKey: try publicKey(path))
            ])
            #expect((run.status == 0) == (try verifier.verify(archive).isVerified), "\(path)")
            let sameKey =
                try publicKey(path).derRepresentation == publicKey(try #require(file.publicKey)).derRepresentation
            #expect((run.status == 0) == sameKey, "\(path)")
        }
    }

    @Test("the allow-list is addressed by key id and version")
    func allowListByIDAndVersion() throws {
        let archive = try ENExportArchive(data: try Fixtures.data("export/en-internals/sample_diagnosis_key_file.zip"))
        let key = try publicKey("export/en-internals/pubkey_310-v1.pem")
        let info = ENExportSignatureInfo(verificationKeyID: "310", verificationKeyVersion: "v1")
        let exact = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: key)
        ])
        #expect(try exact.verify(archive) == .verified(info))
        let wrongVersion = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v2", publicKey: key)
        ])
        #expect(try wrongVersion.verify(archive) == .unknownKey(info))
        let wrongID = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "311", keyVersion: "v1", publicKey: key)
        ])
        #expect(try wrongID.verify(archive) == .unknownKey(info))
        // The right id and version with the wrong public key: a mismatch, not an unknown key.
        let other = try publicKey("export/ens-example/public.pem")
        let wrongKey = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: other)
        ])
        #expect(try wrongKey.verify(archive) == .signatureMismatch(info))
        // Several keys for the same id and version (rotation in progress): any of them may verify.
        let both = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: other),
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: key),
        ])
        #expect(try both.verify(archive) == .verified(info))
    }

    @Test("a file without a key version verifies only with a version wildcard")
    func missingVersion() throws {
        let archive = try ENExportArchive(data: try Fixtures.data("export/xamarin-signed-example/export.zip"))
        let key = try publicKey("export/xamarin-signed-example/public.pem")
        let wildcard = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "ExampleServer_k1", keyVersion: nil, publicKey: key)
        ])
        #expect(try wildcard.verify(archive).isVerified)
        let versioned = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "ExampleServer_k1", keyVersion: "v1", publicKey: key)
        ])
        guard case .unknownKey = try versioned.verify(archive) else {
            Issue.record("expected unknownKey")
            return
        }
    }

    @Test("a bare export.bin reports the missing export.sig")
    func missingSignatureFile() throws {
        let archive = try ENExportArchive(data: try Fixtures.data("export/generated/bare-export.bin"))
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(
                keyID: nil, keyVersion: nil, publicKey: try publicKey("export/ens-example/public.pem"))
        ])
        #expect(try verifier.verify(archive) == .missingSignatureFile)
    }

    @Test("an unsupported algorithm is reported as such")
    func unsupportedAlgorithm() throws {
        var archive = try ENExportArchive(data: try Fixtures.data("export/ens-example/testExport-2-records-1-of-1.zip"))
        var signatures = try archive.signatures()
        signatures[0].signatureInfo?.signatureAlgorithm = "1.2.840.10045.4.3.4"
        archive.signatureFile = try ENExportSignature.encodeList(signatures)
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(
                keyID: nil, keyVersion: nil, publicKey: try publicKey("export/ens-example/public.pem"))
        ])
        guard case .unsupportedAlgorithm(let info) = try verifier.verify(archive) else {
            Issue.record("expected unsupportedAlgorithm")
            return
        }
        #expect(info.signatureAlgorithm == "1.2.840.10045.4.3.4")
    }

    @Test(
        "every spelling of ECDSA P-256 with SHA-256 verifies",
        arguments: [
            nil, "", "1.2.840.10045.4.3.2", "ECDSA p-256 SHA-256", "SHA256withECDSA", "sha256WithECDSA",
            "ecdsa-with-SHA256", "ES256", " 1.2.840.10045.4.3.2 ",
        ])
    func acceptedAlgorithmSpellings(spelling: String?) throws {
        #expect(try verifyExample(signedWithAlgorithm: spelling).result.isVerified, "\(spelling ?? "nil")")
    }

    @Test(
        "other algorithms are refused", arguments: ["1.2.840.10045.4.3.4", "SHA512withECDSA", "SHA256withRSA", "ES384"])
    func refusedAlgorithms(spelling: String) throws {
        let (result, info) = try verifyExample(signedWithAlgorithm: spelling)
        #expect(result == .unsupportedAlgorithm(info))
    }

    /// Verifies the ENS example file with its first signature's algorithm field set to `spelling`.
    private func verifyExample(
        signedWithAlgorithm spelling: String?
    ) throws -> (result: ENExportVerificationResult, info: ENExportSignatureInfo) {
        var archive = try ENExportArchive(data: try Fixtures.data("export/ens-example/testExport-2-records-1-of-1.zip"))
        var signatures = try archive.signatures()
        signatures[0].signatureInfo?.signatureAlgorithm = spelling
        archive.signatureFile = try ENExportSignature.encodeList(signatures)
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(
                keyID: nil, keyVersion: nil, publicKey: try publicKey("export/ens-example/public.pem"))
        ])
        return (try verifier.verify(archive), signatures[0].signatureInfo!)
    }

    @Test("an empty signature list is reported")
    func noSignatures() throws {
        var archive = try ENExportArchive(data: try Fixtures.data("export/ens-example/testExport-2-records-1-of-1.zip"))
        archive.signatureFile = Data()
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(
                keyID: nil, keyVersion: nil, publicKey: try publicKey("export/ens-example/public.pem"))
        ])
        #expect(try verifier.verify(archive) == .noSignatures)
    }

    @Test("a key tampered with after signing fails verification")
    func tamperedKey() throws {
        var archive = try ENExportArchive(data: try Fixtures.data("export/ens-example/testExport-2-records-1-of-1.zip"))
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(
                keyID: "some_id", keyVersion: "1", publicKey: try publicKey("export/ens-example/public.pem"))
        ])
        #expect(try verifier.verify(archive).isVerified)
        var export = try archive.keyExport()
        export.keys[0].keyData[export.keys[0].keyData.startIndex] ^= 0x01
        // Re-encode only the bin (as an attacker would), keeping the old signature.
        let original = archive.exportBinary
        var tampered = original
        let oldKey = try archive.keyExport().keys[0].keyData
        let range = try #require(tampered.firstRange(of: oldKey))
        tampered[range.lowerBound] ^= 0x01
        archive.exportBinary = tampered
        #expect(try archive.keyExport().keys.contains { $0.keyData == export.keys[0].keyData })
        guard case .signatureMismatch = try verifier.verify(archive) else {
            Issue.record("expected signatureMismatch")
            return
        }
    }

    @Test("a malformed export.sig is a format error")
    func malformedSignatureFile() throws {
        var archive = try ENExportArchive(data: try Fixtures.data("export/ens-example/testExport-2-records-1-of-1.zip"))
        archive.signatureFile = Data([0x0A, 0x50, 0x01])
        let verifier = ENExportVerifier(trustedKeys: [])
        #expect(throws: ENError.self) { try verifier.verify(archive) }
        do {
            _ = try verifier.verify(archive)
        } catch {
            #expect(error.code == .badFormat)
        }
    }
}
