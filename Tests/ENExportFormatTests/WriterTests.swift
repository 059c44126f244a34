import ENCore
import ENCrypto
import ENExportFormat
import Foundation
import Testing

@Suite("Writing and signing")
struct WriterTests {
    /// The ENS example key pair (published on purpose).
    func ensSigner() throws -> ENExportSigner {
        let pem = String(decoding: try fixture("ens-example/private.pem"), as: UTF8.self)
        return ENExportSigner(signingKey: try P256SigningKey(pemRepresentation: pem), keyID: "some_id", keyVersion: "1")
    }

    func ensVerifier() throws -> ENExportVerifier {
        let pem = String(decoding: try fixture("ens-example/public.pem"), as: UTF8.self)
        return ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(
                keyID: "some_id", keyVersion: "1", publicKey: try P256VerifyingKey(pemRepresentation: pem))
        ])
    }

    @Test("the ENS example keys, re-exported and signed, verify with openssl and decode with protoc")
    func writesWhatOthersAccept() throws {
        let original = try ENExportArchive(data: try fixture("ens-example/testExport-2-records-1-of-1.zip")).keyExport()
        let writer = ENExportWriter(
            region: "US", startTimestamp: 1_590_159_600, endTimestamp: 1_590_246_000, signers: [try ensSigner()])
        let archives = try writer.archives(keys: original.keys)
        #expect(archives.count == 1)
        let zipped = try archives[0].zipData()
        let reread = try ENExportArchive(data: zipped)
        #expect(reread == archives[0])
        let export = try reread.keyExport()
        #expect(sorted(export.keys) == sorted(original.keys))
        #expect(export.region == "US")
        #expect(export.startTimestamp == 1_590_159_600)
        #expect(export.endTimestamp == 1_590_246_000)
        #expect(export.batchNumber == 1 && export.batchSize == 1)
        #expect(try ensVerifier().verify(reread).isVerified)

        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bin = directory.appendingPathComponent("export.bin")
        let sig = directory.appendingPathComponent("sig.der")
        try reread.exportBinary.write(to: bin)
        try #require(try reread.signatures().first).signature.write(to: sig)
        if let run = try runTool(
            "openssl",
            [
                "dgst", "-sha256", "-verify", try fixtureURL("ens-example/public.pem").path, "-signature", sig.path,
                bin.path,
            ])
        {
            #expect(run.status == 0, "\(String(decoding: run.stdout + run.stderr, as: UTF8.self))")
            #expect(String(decoding: run.stdout, as: UTF8.self).contains("Verified OK"))
            // And openssl refuses it once a byte of the file changes.
            var tampered = reread.exportBinary
            tampered[tampered.count - 1] ^= 0x01
            try tampered.write(to: bin)
            let bad = try #require(
                try runTool(
                    "openssl",
                    [
                        "dgst", "-sha256", "-verify", try fixtureURL("ens-example/public.pem").path, "-signature",
                        sig.path, bin.path,
                    ]))
            #expect(bad.status != 0)
        } else {
            print("note: openssl is not installed; skipping the openssl cross-check")
        }
        if let decoded = try protocDecode(reread.exportBinary.dropFirst(16), type: "TemporaryExposureKeyExport") {
            let keys = decoded.messages("keys")
            #expect(keys.count == 2)
            for (text, key) in zip(keys, export.keys) {
                #expect(text.bytes("key_data") == key.keyData)
                #expect(text.scalar("rolling_period") == String(key.rollingPeriod))
                #expect(text.scalar("rolling_start_interval_number") == String(key.rollingStartNumber.rawValue))
            }
            #expect(decoded.string("region") == "US")
            let info = try #require(decoded.messages("signature_infos").first)
            #expect(info.string("verification_key_id") == "some_id")
            #expect(info.string("signature_algorithm") == "1.2.840.10045.4.3.2")
        } else {
            print("note: protoc is not installed; skipping the protoc cross-check")
        }
        // The zip holds export.bin then export.sig, as unzip lists them.
        let zipURL = directory.appendingPathComponent("export.zip")
        try archives[0].write(to: zipURL)
        if let listing = try runTool("unzip", ["-Z1", zipURL.path]) {
            #expect(String(decoding: listing.stdout, as: UTF8.self) == "export.bin\nexport.sig\n")
        }
    }

    @Test("every field, including report type, days since onset and variant, decodes with protoc as written")
    func allFieldsWithProtoc() throws {
        let key = ENTemporaryExposureKey(
            keyData: Data(hexString: "75c734c6dd1a782de7a965da5eb93125")!, rollingStartNumber: 2_642_976,
            rollingPeriod: 144, transmissionRiskLevel: 4, diagnosisReportType: .selfReported,
            daysSinceOnsetOfSymptoms: -3, variantOfConcern: .type2)
        let revoked = ENTemporaryExposureKey(
            keyData: Data(repeating: 0xAB, count: 16), rollingStartNumber: 2_642_832, rollingPeriod: 100,
            transmissionRiskLevel: 0, diagnosisReportType: .revoked)
        let export = ENKeyExport(startTimestamp: 1, endTimestamp: 2, region: "222", keys: [key], revisedKeys: [revoked])
        let binary = try export.exportBinary()
        #expect(try ENKeyExport(exportBinary: binary) == export)
        #expect(try SwiftProtobufOracle.exportBinary(export) == binary)
        guard let decoded = try protocDecode(binary.dropFirst(16), type: "TemporaryExposureKeyExport") else {
            print("note: protoc is not installed; skipping the protoc cross-check")
            return
        }
        let text = try #require(decoded.messages("keys").first)
        #expect(text.scalar("report_type") == "SELF_REPORT")
        #expect(text.scalar("days_since_onset_of_symptoms") == "-3")
        #expect(text.scalar("variant_of_concern") == "VARIANT_TYPE_2")
        #expect(text.scalar("transmission_risk_level") == "4")
        let revised = try #require(decoded.messages("revised_keys").first)
        #expect(revised.scalar("report_type") == "REVOKED")
        #expect(revised.scalar("days_since_onset_of_symptoms") == nil)
        #expect(revised.bytes("key_data") == revoked.keyData)
        // ZigZag: -3 is the varint 5 after the field-6 tag (0x30).
        #expect(binary.firstRange(of: Data([0x30, 0x05])) != nil)
    }

    /// 150,000 keys make an export.bin of about 4 MiB, deflated in several pieces in parallel.
    @Test(
        "written zips pass unzip -t and Python's zipfile, which extract exactly export.bin and export.sig",
        arguments: [5_000, 150_000])
    func zipsReadElsewhere(keyCount: Int) throws {
        var rng = SeededGenerator(seed: 11)
        let keys = (0..<keyCount).map { _ in randomKey(using: &rng) }
        let writer = ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [try ensSigner()])
        let archive = try writer.archives(keys: keys, using: &rng)[0]
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let zipURL = directory.appendingPathComponent("export.zip")
        try archive.write(to: zipURL)
        #expect(try ENExportArchive(contentsOf: zipURL) == archive)

        if let test = try runTool("unzip", ["-t", zipURL.path]) {
            #expect(test.status == 0, "\(String(decoding: test.stdout + test.stderr, as: UTF8.self))")
            #expect(String(decoding: test.stdout, as: UTF8.self).contains("No errors detected"))
            let listing = try #require(try runTool("unzip", ["-Z1", zipURL.path]))
            #expect(String(decoding: listing.stdout, as: UTF8.self) == "export.bin\nexport.sig\n")
        } else {
            print("note: unzip is not installed; skipping the unzip cross-check")
        }
        // Python's zipfile: the archive tests clean, and extracting gives the same bytes.
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                assert [i.filename for i in z.infolist()] == ["export.bin", "export.sig"], z.namelist()
                assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())
                open(sys.argv[2], "wb").write(z.read("export.bin"))
                open(sys.argv[3], "wb").write(z.read("export.sig"))
            """
        let bin = directory.appendingPathComponent("export.bin")
        let sig = directory.appendingPathComponent("export.sig")
        if let python = try runTool("python3", ["-c", script, zipURL.path, bin.path, sig.path]) {
            #expect(python.status == 0, "\(String(decoding: python.stderr, as: UTF8.self))")
            #expect(try Data(contentsOf: bin) == archive.exportBinary)
            #expect(try Data(contentsOf: sig) == archive.signatureFile)
            let check = try #require(try runTool("python3", ["-m", "zipfile", "-t", zipURL.path]))
            #expect(check.status == 0, "\(String(decoding: check.stdout + check.stderr, as: UTF8.self))")
        } else {
            print("note: python3 is not installed; skipping the zipfile cross-check")
        }
    }

    @Test("empty, incompressible and repetitive entries, in one deflate piece or several, zip and read back")
    func zipEdgeCases() throws {
        var rng = SeededGenerator(seed: 12)
        let noise = Data((0..<3_500_000).map { _ in UInt8.random(in: 0...255, using: &rng) })
        // A 1000-byte block repeated across the 1 MiB piece boundaries: each piece after the first finds its
        // matches in the 32 KiB dictionary it is primed with, so the whole entry compresses to almost nothing.
        let repeated = Data((0..<3_500).flatMap { _ in noise.prefix(1_000) })
        let cases: [(bin: Data, sig: Data, limit: Int)] = [
            (ENKeyExport.header, Data(), 300),
            (ENKeyExport.header + noise.prefix(100_000), noise.prefix(71), 100_371 + 300),
            (ENKeyExport.header + noise, noise.prefix(71), 3_500_087 + 2_000),
            (ENKeyExport.header + repeated, Data(), 40_000),
        ]
        for (bin, sig, limit) in cases {
            let archive = ENExportArchive(exportBinary: bin, signatureFile: sig)
            let zip = try archive.zipData()
            #expect(try ENExportArchive(data: zip) == archive)
            #expect(zip.count < limit)
        }
    }

    @Test("random key sets round-trip through write, zip, read and verify", arguments: 0..<12)
    func roundTrip(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed))
        let keys = (0..<Int.random(in: 0...300, using: &rng)).map { _ in randomKey(using: &rng) }
        let revised = (0..<Int.random(in: 0...20, using: &rng)).map { _ in randomKey(using: &rng) }
        var writer = ENExportWriter(region: "DE", startTimestamp: 100, endTimestamp: 200, signers: [try ensSigner()])
        writer.maximumKeysPerFile = Int.random(in: 1...400, using: &rng)
        let archives = try writer.archives(keys: keys, revisedKeys: revised, using: &rng)
        var readKeys: [ENTemporaryExposureKey] = []
        var readRevised: [ENTemporaryExposureKey] = []
        var ends = Set<UInt64>()
        let verifier = try ensVerifier()
        for archive in archives {
            let reread = try ENExportArchive(data: try archive.zipData())
            #expect(try verifier.verify(reread).isVerified)
            let export = try reread.keyExport()
            #expect(export.keys.count + export.revisedKeys.count <= writer.maximumKeysPerFile)
            readKeys += export.keys
            readRevised += export.revisedKeys
            ends.insert(try #require(export.endTimestamp))
            // The scanner and swift-protobuf read the same; swift-protobuf writes the same bytes.
            let scanner = try reread.keyScanner()
            #expect(try scanner.allKeys() == export.keys)
            #expect(try scanner.allKeys(in: .revisedKeys) == export.revisedKeys)
            #expect(SwiftProtobufOracle.export(reread.exportBinary) == export)
            #expect(try SwiftProtobufOracle.exportBinary(export) == reread.exportBinary)
            let signatureFile = try #require(reread.signatureFile)
            #expect(try SwiftProtobufOracle.signatureFile(try reread.signatures()) == signatureFile)
        }
        #expect(sorted(readKeys) == sorted(keys))
        #expect(sorted(readRevised) == sorted(revised))
        #expect(ends.count == archives.count)
        #expect(
            archives.count
                == max(1, (keys.count + revised.count + writer.maximumKeysPerFile - 1) / writer.maximumKeysPerFile))
    }

    @Test("keys are written in random order, not grouped as given")
    func shuffles() throws {
        var rng = SeededGenerator(seed: 42)
        let keys = (0..<200).map { _ in randomKey(using: &rng) }
        let writer = ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [try ensSigner()])
        let first = try writer.archives(keys: keys)[0].keyExport().keys
        let second = try writer.archives(keys: keys)[0].keyExport().keys
        #expect(first != keys)
        #expect(first != second)
        #expect(sorted(first) == sorted(keys))
    }

    @Test("files split at the key limit and the size limit, with distinct end timestamps")
    func splits() throws {
        var rng = SeededGenerator(seed: 7)
        let keys = (0..<1000).map { _ in randomKey(using: &rng) }
        var writer = ENExportWriter(region: "US", startTimestamp: 10, endTimestamp: 20, signers: [try ensSigner()])
        writer.maximumKeysPerFile = 300
        let byCount = try writer.archives(keys: keys, using: &rng)
        #expect(byCount.count == 4)
        #expect(try byCount.map { try $0.keyExport().keys.count } == [300, 300, 300, 100])
        #expect(try byCount.map { try $0.keyExport().endTimestamp } == [20, 21, 22, 23])
        #expect(try byCount.allSatisfy { try $0.keyExport().batchNumber == 1 && $0.keyExport().batchSize == 1 })

        writer.maximumKeysPerFile = 750_000
        writer.maximumExportBinarySize = 8_000
        let bySize = try writer.archives(keys: keys, using: &rng)
        #expect(bySize.count > 1)
        for archive in bySize { #expect(archive.exportBinary.count <= 8_000) }
        #expect(try sorted(bySize.flatMap { try $0.keyExport().keys }) == sorted(keys))
        // The size bound is tight: every file but the last could not take one more key (keys are at most 37 bytes).
        for archive in bySize.dropLast() { #expect(archive.exportBinary.count > 8_000 - 40) }

        writer.maximumExportBinarySize = 50
        #expect(throws: ENError.self) { try writer.archives(keys: keys) }
    }

    @Test("several signers: every signature verifies and the first decides")
    func severalSignatures() throws {
        let current = ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v2")
        let previous = ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v1")
        var rng = SeededGenerator(seed: 3)
        let keys = (0..<20).map { _ in randomKey(using: &rng) }
        let writer = ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [current, previous])
        let archive = try writer.archives(keys: keys)[0]
        let signatures = try archive.signatures()
        #expect(signatures.map(\.signatureInfo) == [current.signatureInfo, previous.signatureInfo])
        #expect(try archive.keyExport().signatureInfos == [current.signatureInfo, previous.signatureInfo])
        #expect(try current.signingKey.publicKey.isValidSignature(signatures[0].signature, for: archive.exportBinary))
        #expect(try previous.signingKey.publicKey.isValidSignature(signatures[1].signature, for: archive.exportBinary))

        let trustsCurrent = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v2", publicKey: try current.signingKey.publicKey)
        ])
        #expect(try trustsCurrent.verify(archive).isVerified)
        // iOS's rule: only the first signature counts, so trusting only the older key is not enough.
        let trustsPrevious = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try previous.signingKey.publicKey)
        ])
        #expect(try trustsPrevious.verify(archive) == .unknownKey(current.signatureInfo))
    }

    @Test("invalid keys and parameters are refused with badParameter, naming the problem")
    func refusesBadParameters() throws {
        let signer = try ensSigner()
        let good = ENTemporaryExposureKey(keyData: Data(count: 16), rollingStartNumber: 2_650_000)
        let cases: [(ENExportWriter, [ENTemporaryExposureKey], String)] = [
            (ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: []), [good], "signer"),
            (
                ENExportWriter(
                    region: "US", startTimestamp: 0, endTimestamp: 1, signers: Array(repeating: signer, count: 11)),
                [good], "at most 10"
            ),
            (ENExportWriter(region: "US", startTimestamp: 5, endTimestamp: 1, signers: [signer]), [good], "after"),
            (
                ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [signer]),
                [good, ENTemporaryExposureKey(keyData: Data(count: 15), rollingStartNumber: 1)], "keys[1]"
            ),
            (
                ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [signer]),
                [ENTemporaryExposureKey(keyData: Data(count: 16), rollingStartNumber: 1, rollingPeriod: 145)],
                "rolling period"
            ),
            (
                ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [signer]),
                [
                    ENTemporaryExposureKey(
                        keyData: Data(count: 16), rollingStartNumber: ENIntervalNumber(rawValue: 0x8000_0000))
                ],
                "int32"
            ),
        ]
        for (writer, keys, reason) in cases {
            do {
                _ = try writer.archives(keys: keys)
                Issue.record("expected a refusal mentioning \(reason)")
            } catch {
                #expect(error.code == .badParameter)
                #expect(error.reason.contains(reason), "\(error.reason)")
            }
        }
        #expect(throws: ENError.self) { try ENExportArchive(exportBinary: Data(), signatureFile: nil).zipData() }
    }

    @Test("an empty key set still gives one signed file")
    func emptyKeySet() throws {
        let writer = ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [try ensSigner()])
        let archives = try writer.archives(keys: [])
        #expect(archives.count == 1)
        #expect(try archives[0].keyExport().keys.isEmpty)
        #expect(try ensVerifier().verify(try ENExportArchive(data: try archives[0].zipData())).isVerified)
    }
}
