import ENTestSupport
import Foundation
import Testing

@Suite("entool verify")
struct VerifyCommandTests {
    @Test("exits 0 when the signature verifies with the published key")
    func verifies() throws {
        let file = try Fixtures.url("export/en-internals/sample_diagnosis_key_file.zip").path
        let key = try Fixtures.url("export/en-internals/pubkey_310-v1.pem").path
        let plain = try runEntool(["verify", file, "--public-key", key])
        #expect(plain.status == 0, "\(plain.stderr)")
        let scoped = try runEntool([
            "verify", file, "--public-key", key, "--key-id", "310", "--key-version", "v1", "--json",
        ])
        #expect(scoped.status == 0, "\(scoped.stderr)")
        let object = try #require(try scoped.json() as? [String: Any])
        #expect(object["verified"] as? Bool == true)
        #expect(object["result"] as? String == "verified")
        #expect(object["verificationKeyId"] as? String == "310")
        #expect(object["keyCount"] as? Int == 140)
    }

    @Test("exits 1 for the wrong key, the wrong key id, or no export.sig, saying why")
    func doesNotVerify() throws {
        let file = try Fixtures.url("export/en-internals/sample_diagnosis_key_file.zip").path
        let wrongKey = try runEntool([
            "verify", file, "--public-key", try Fixtures.url("export/ens-example/public.pem").path, "--json",
        ])
        #expect(wrongKey.status == 1)
        #expect((try wrongKey.json() as? [String: Any])?["result"] as? String == "signatureMismatch")
        let wrongID = try runEntool([
            "verify", file, "--public-key", try Fixtures.url("export/en-internals/pubkey_310-v1.pem").path, "--key-id",
            "999", "--json",
        ])
        #expect(wrongID.status == 1)
        #expect((try wrongID.json() as? [String: Any])?["result"] as? String == "unknownKey")
        let bare = try runEntool([
            "verify", try Fixtures.url("export/generated/bare-export.bin").path, "--public-key",
            try Fixtures.url("export/ens-example/public.pem").path, "--json",
        ])
        #expect(bare.status == 1)
        #expect((try bare.json() as? [String: Any])?["result"] as? String == "missingSignatureFile")
    }

    @Test("exits 2 for a malformed file, a malformed key or a missing option")
    func tamperedAndMalformed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bomb = try runEntool([
            "verify", try Fixtures.url("export/generated/bomb-inflated.zip").path, "--public-key",
            try Fixtures.url("export/ens-example/public.pem").path,
        ])
        #expect(bomb.status == 2)
        let notPEM = dir.appendingPathComponent("key.pem")
        try Data("not a key".utf8).write(to: notPEM)
        let badKey = try runEntool([
            "verify", try Fixtures.url("export/ens-example/testExport-2-records-1-of-1.zip").path, "--public-key",
            notPEM.path,
        ])
        #expect(badKey.status == 2)
        let noKey = try runEntool([
            "verify", try Fixtures.url("export/ens-example/testExport-2-records-1-of-1.zip").path,
        ])
        #expect(noKey.status == 2)
    }
}
