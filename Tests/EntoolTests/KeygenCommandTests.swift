import ENTestSupport
import Foundation
import Testing

@Suite("entool keygen")
struct KeygenCommandTests {
    @Test("writes a P-256 key pair, with a private file of mode 0600")
    func keyPair() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let priv = dir.appendingPathComponent("private.pem").path
        let pub = dir.appendingPathComponent("public.pem").path
        let result = try runEntool(["keygen", "--private-key", priv, "--public-key", pub, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: String])
        #expect(object["publicKeyBase64"]?.hasPrefix("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE") == true)
        #expect(try String(contentsOfFile: priv, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try String(contentsOfFile: pub, encoding: .utf8).hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let attributes = try FileManager.default.attributesOfItem(atPath: priv)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

    }

    @Test(
        "openssl derives the same public key from the private key keygen writes",
        .enabled(if: ExternalTool.openssl.isAvailable))
    func opensslReadsKeyPair() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let priv = dir.path("private.pem")
        let pub = dir.path("public.pem")
        let result = try runEntool(["keygen", "--private-key", priv, "--public-key", pub])
        #expect(result.status == 0, "\(result.stderr)")
        let derived = try ExternalTool.openssl.run(["pkey", "-in", priv, "-pubout"])
        #expect(derived.status == 0)
        #expect(derived.output == (try String(contentsOfFile: pub, encoding: .utf8)))
    }

    @Test("refuses to overwrite existing files without --force, and the files stay unchanged")
    func noOverwrite() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let priv = dir.appendingPathComponent("private.pem").path
        let pub = dir.appendingPathComponent("public.pem").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: priv))
        let refused = try runEntool(["keygen", "--private-key", priv, "--public-key", pub])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--force"))
        #expect(try String(contentsOfFile: priv, encoding: .utf8) == "keep me")
        #expect(!FileManager.default.fileExists(atPath: pub))
        let forced = try runEntool(["keygen", "--private-key", priv, "--public-key", pub, "--force"])
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: priv, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let same = try runEntool(["keygen", "--private-key", priv, "--public-key", priv])
        #expect(same.status == 2)
        let unwritable = try runEntool([
            "keygen", "--private-key", "/nonexistent-dir/p.pem", "--public-key", pub, "--force",
        ])
        #expect(unwritable.status == 2)
    }
}
