import ENCore
import ENCrypto
import ENTestSupport
import Foundation
import Testing

@Suite("ECDSA P-256 signatures")
struct SignatureTests {
    @Test("sign and verify; any change to the data or signature fails")
    func signAndVerify() throws {
        let key = try P256SigningKey()
        let message = Data("EK Export v1    payload".utf8)
        let signature = try key.signature(for: message)
        #expect((8...72).contains(signature.derRepresentation.count))  // DER: usually 70-72 bytes
        let publicKey = try key.publicKey
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(publicKey.isValidSignature(signature.derRepresentation, for: message))
        var tampered = message
        tampered[3] ^= 1
        #expect(!publicKey.isValidSignature(signature, for: tampered))
        var badSignature = signature.derRepresentation
        badSignature[badSignature.count - 1] ^= 1
        #expect(!publicKey.isValidSignature(badSignature, for: message))
        let other = try P256SigningKey().publicKey
        #expect(!other.isValidSignature(signature, for: message))
        #expect(publicKey.isValidSignature(signature, forDigest: SHA256.hash(message)))
        #expect(publicKey.isValidSignature(signature.derRepresentation, forDigest: SHA256.hash(message)))
        #expect(!publicKey.isValidSignature(signature, forDigest: SHA256.hash(tampered)))
    }

    @Test("A remembered valid signature does not make other digests, signatures or keys valid")
    func rememberedVerifications() throws {
        let key = try P256SigningKey()
        let publicKey = try key.publicKey
        let other = try P256SigningKey().publicKey
        let messages = (0..<40).map { Data("message \($0)".utf8) }
        let signatures = try messages.map { try key.signature(for: $0) }
        // More valid pairs than the key remembers, each asked twice, then the first again (forgotten by then).
        for (message, signature) in zip(messages, signatures) {
            #expect(publicKey.isValidSignature(signature, forDigest: SHA256.hash(message)))
            #expect(publicKey.isValidSignature(signature, forDigest: SHA256.hash(message)))
        }
        #expect(publicKey.isValidSignature(signatures[0], forDigest: SHA256.hash(messages[0])))
        // A copy shares what the key remembers; the remembered pairs do not vouch for anything else.
        let copy = publicKey
        for index in messages.indices.suffix(8) {
            let digest = SHA256.hash(messages[index])
            #expect(copy.isValidSignature(signatures[index], forDigest: digest))
            #expect(!copy.isValidSignature(signatures[(index + 1) % messages.count], forDigest: digest))
            #expect(!other.isValidSignature(signatures[index], forDigest: digest))
            var tampered = digest
            tampered[0] ^= 1
            #expect(!copy.isValidSignature(signatures[index], forDigest: tampered))
            var badSignature = signatures[index].derRepresentation
            badSignature[badSignature.count - 1] ^= 1
            #expect(!copy.isValidSignature(badSignature, forDigest: digest))
        }
    }

    @Test("PEM and DER round trips for both halves")
    func encodings() throws {
        let key = try P256SigningKey()
        let pem = try key.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try P256SigningKey(pemRepresentation: pem)
        #expect(try again.derRepresentation == key.derRepresentation)
        #expect(try P256SigningKey(derRepresentation: key.derRepresentation).pemRepresentation == pem)
        let pub = try key.publicKey
        #expect(try pub.pemRepresentation.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(
            try P256VerifyingKey(pemRepresentation: pub.pemRepresentation).derRepresentation == pub.derRepresentation)
        #expect(try pub.x963Representation.count == 65)
        #expect(
            try P256VerifyingKey(x963Representation: pub.x963Representation).derRepresentation == pub.derRepresentation)
        let base64 = try pub.derRepresentation.base64EncodedString()
        #expect(base64.hasPrefix("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"))
        #expect(try P256VerifyingKey(base64SubjectPublicKeyInfo: base64).derRepresentation == pub.derRepresentation)
    }

    @Test("the published ENS example key pair (SEC1 PEM) signs and verifies")
    func ensExampleKeyPair() throws {
        let privateKey = try P256SigningKey(pemRepresentation: Fixtures.text("export/ens-example/private.pem"))
        let publicKey = try P256VerifyingKey(pemRepresentation: Fixtures.text("export/ens-example/public.pem"))
        #expect(try privateKey.publicKey.derRepresentation == publicKey.derRepresentation)
        let message = Data("hello".utf8)
        #expect(publicKey.isValidSignature(try privateKey.signature(for: message), for: message))
    }

    @Test("raw r||s and DER forms convert both ways")
    func rawForm() throws {
        let key = try P256SigningKey()
        let signature = try key.signature(for: Data([1, 2, 3]))
        #expect(try P256Signature(derRepresentation: signature.derRepresentation) == signature)
        #expect(signature.rawRepresentation.count == 64)
        #expect(try P256Signature(rawRepresentation: signature.rawRepresentation) == signature)
        #expect(throws: ENError.self) { try P256Signature(rawRepresentation: Data(count: 63)) }
    }

    @Test("malformed keys and signatures are refused with a reason")
    func badInput() throws {
        #expect {
            try P256VerifyingKey(
                pemRepresentation: "-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n")
        } throws: { ($0 as? ENError)?.code == .badFormat }
        #expect(throws: ENError.self) { try P256SigningKey(pemRepresentation: "") }
        #expect(throws: ENError.self) { try P256SigningKey(derRepresentation: Data([0x30, 0x03, 0x02, 0x01])) }
        #expect(throws: ENError.self) { try P256VerifyingKey(derRepresentation: Data(count: 91)) }
        #expect(throws: ENError.self) { try P256VerifyingKey(x963Representation: Data(count: 65)) }
        #expect(throws: ENError.self) { try P256VerifyingKey(base64SubjectPublicKeyInfo: "%%%") }
        // A key on another curve, or of another algorithm, names what is required.
        #expect {
            try P256VerifyingKey(pemRepresentation: Fixtures.text("crypto/p384-public.pem"))
        } throws: { ($0 as? ENError)?.code == .badParameter && "\($0)".contains("P-256") }
        #expect {
            try P256VerifyingKey(pemRepresentation: Fixtures.text("crypto/ed25519-public.pem"))
        } throws: { ($0 as? ENError)?.code == .badParameter }

        let key = try P256SigningKey()
        let message = Data("data".utf8)
        let der = try key.signature(for: message).derRepresentation
        for cut in [1, 8, der.count - 1] {
            let truncated = der.prefix(cut)
            #expect {
                try P256Signature(derRepresentation: truncated)
            } throws: { ($0 as? ENError)?.code == .badFormat && "\($0)".contains("truncated") }
            #expect(!(try key.publicKey.isValidSignature(truncated, for: message)))
        }
        #expect(throws: ENError.self) { try P256Signature(derRepresentation: der + Data([0])) }
        #expect(throws: ENError.self) { try P256Signature(derRepresentation: Data()) }
    }

    @Test(
        "a signature made here verifies with `openssl dgst -sha256 -verify`",
        .enabled(if: ExternalTool.openssl.isAvailable))
    func verifiedByOpenSSL() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try P256SigningKey()
        let message = try SecureRandom.bytes(count: 5000)
        try message.write(to: dir.appendingPathComponent("export.bin"))
        try key.signature(for: message).derRepresentation.write(to: dir.appendingPathComponent("sig.der"))
        try Data(key.publicKey.pemRepresentation.utf8).write(to: dir.appendingPathComponent("pub.pem"))
        let ok = try ExternalTool.openssl.run([
            "dgst", "-sha256", "-verify", dir.appendingPathComponent("pub.pem").path, "-signature",
            dir.appendingPathComponent("sig.der").path, dir.appendingPathComponent("export.bin").path,
        ])
        #expect(ok.status == 0)
        #expect(ok.output.contains("Verified OK"))
        // And openssl refuses it for other data: the check can fail.
        try Data("other".utf8).write(to: dir.appendingPathComponent("other.bin"))
        let bad = try ExternalTool.openssl.run([
            "dgst", "-sha256", "-verify", dir.appendingPathComponent("pub.pem").path, "-signature",
            dir.appendingPathComponent("sig.der").path, dir.appendingPathComponent("other.bin").path,
        ])
        #expect(bad.status != 0)
    }

    @Test(
        "a signature made by `openssl dgst -sha256 -sign` verifies here", .enabled(if: ExternalTool.openssl.isAvailable)
    )
    func verifiesOpenSSLSignature() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyPath = dir.appendingPathComponent("key.pem").path
        let generated = try ExternalTool.openssl.run([
            "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", keyPath,
        ])
        #expect(generated.status == 0)
        let pub = try ExternalTool.openssl.run(["ec", "-in", keyPath, "-pubout"])
        let message = try SecureRandom.bytes(count: 3000)
        let messagePath = dir.appendingPathComponent("export.bin").path
        try message.write(to: URL(fileURLWithPath: messagePath))
        let signed = try ExternalTool.openssl.run(["dgst", "-sha256", "-sign", keyPath, messagePath])
        #expect(signed.status == 0)
        let verifier = try P256VerifyingKey(pemRepresentation: String(decoding: pub.stdout, as: UTF8.self))
        #expect(verifier.isValidSignature(signed.stdout, for: message))
        #expect(!verifier.isValidSignature(signed.stdout, for: message.dropFirst()))
        // The private key openssl wrote (SEC1) loads here and produces the same public key.
        let loaded = try P256SigningKey(pemRepresentation: String(contentsOfFile: keyPath, encoding: .utf8))
        #expect(try loaded.publicKey.derRepresentation == verifier.derRepresentation)
    }

    @Test("SHA-256 of known inputs, one-shot and incremental, and copies continue independently")
    func sha256() {
        #expect(
            SHA256.hash(Data("abc".utf8)).hexString
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash(Data()).hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        var hasher = SHA256()
        hasher.update(Data("a".utf8))
        let copy = hasher
        hasher.update(Data("bc".utf8))
        #expect(hasher.finalize() == SHA256.hash(Data("abc".utf8)))
        #expect(copy.finalize() == SHA256.hash(Data("a".utf8)))
        #expect(throws: ENError.self) { try SecureRandom.bytes(count: -1) }
    }
}

@Suite("AES-GCM")
struct AESGCMTests {
    @Test("seal and open round-trip for both key sizes and any length, including empty")
    func roundTrip() throws {
        for keySize in [16, 32] {
            let key = try AESGCM.Key(data: SecureRandom.bytes(count: keySize))
            for length in [0, 1, 15, 16, 17, 1000] {
                let plaintext = try SecureRandom.bytes(count: length)
                let sealed = try AESGCM.seal(plaintext, using: key, authenticating: Data("aad".utf8))
                #expect(sealed.count == length + 28)
                #expect(try AESGCM.open(sealed, using: key, authenticating: Data("aad".utf8)) == plaintext)
            }
        }
    }

    @Test("a changed byte, another key, other additional data or a short box fail with badFormat")
    func tampering() throws {
        let key = try AESGCM.Key.generate()
        let sealed = try AESGCM.seal(Data("sightings".utf8), using: key)
        for index in [0, 12, sealed.count - 1] {
            var changed = sealed
            changed[index] ^= 0x01
            #expect { try AESGCM.open(changed, using: key) } throws: { ($0 as? ENError)?.code == .badFormat }
        }
        #expect(throws: ENError.self) { try AESGCM.open(sealed, using: AESGCM.Key.generate()) }
        #expect(throws: ENError.self) { try AESGCM.open(sealed, using: key, authenticating: Data("x".utf8)) }
        #expect(throws: ENError.self) { try AESGCM.open(sealed.prefix(27), using: key) }
        #expect(throws: ENError.self) { try AESGCM.Key(data: Data(count: 24)) }
    }

    @Test("matches NIST's GCM test case 4 (AES-128, 60-byte plaintext with AAD)")
    func knownAnswer() throws {
        // NIST GCM spec (McGrew & Viega), test case 4; sealed box = IV || C || T.
        let key = try AESGCM.Key(data: Data(hexString: "feffe9928665731c6d6a8f9467308308")!)
        let iv = "cafebabefacedbaddecaf888"
        let c =
            "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
        let t = "5bc94fbc3221a5db94fae95ae7121a47"
        let p =
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
        let aad = Data(hexString: "feedfacedeadbeeffeedfacedeadbeefabaddad2")!
        let opened = try AESGCM.open(Data(hexString: iv + c + t)!, using: key, authenticating: aad)
        #expect(opened.hexString == p)
    }
}
