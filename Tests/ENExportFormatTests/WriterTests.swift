import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

@Suite("Writing and signing")
struct WriterTests {
    /// The ENS example key pair (published on purpose).
    func ensSigner() throws -> ENExportSigner {
        let pem = String(decoding: try Fixtures.data("export/ens-example/private.pem"), as: UTF8.self)
        return ENExportSigner(signingKey: try P256SigningKey(pemRepresentation: pem), keyID: "some_id", keyVersion: "1")
    }

    func ensVerifier() throws -> ENExportVerifier {
        let pem = String(decoding: try Fixtures.data("export/ens-example/public.pem"), as: UTF8.self)
        return ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(
                keyID: "some_id", keyVersion: "1", publicKey: try P256VerifyingKey(pemRepresentation: pem))
        ])
    }

    /// The ENS example's keys, written and signed again by ``ENExportWriter``.
    func reexportedENSExample() throws -> (written: ENExportArchive, original: ENKeyExport) {
        let original = try ENExportArchive(
            data: try Fixtures.data("export/ens-example/testExport-2-records-1-of-1.zip")
        )
        .keyExport()
        let writer = ENExportWriter(
            region: "US", startTimestamp: 1_590_159_600, endTimestamp: 1_590_246_000, signers: [try ensSigner()])
        let archives = try writer.archives(keys: original.keys)
        #expect(archives.count == 1)
        return (try #require(archives.first), original)
    }

    @Test("the ENS example keys, re-exported and signed, read back and verify")
    func writesWhatReadsBack() throws {
        let (written, original) = try reexportedENSExample()
        let zipped = try written.zipData()
        let reread = try ENExportArchive(data: zipped)
        #expect(reread == written)
        let export = try reread.keyExport()
        #expect(sorted(export.keys) == sorted(original.keys))
        #expect(export.region == "US")
        #expect(export.startTimestamp == 1_590_159_600)
        #expect(export.endTimestamp == 1_590_246_000)
        #expect(export.batchNumber == 1 && export.batchSize == 1)
        #expect(try ensVerifier().verify(reread).isVerified)
    }

    @Test(
        "the ENS example keys, re-exported and signed, verify with openssl",
        .enabled(if: ExternalTool.openssl.isAvailable))
    func writesWhatOpenSSLAccepts() throws {
        let reread = try ENExportArchive(data: try reexportedENSExample().written.zipData())
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let bin = directory.url.appendingPathComponent("export.bin")
        let sig = directory.url.appendingPathComponent("sig.der")
        try reread.exportBinary.write(to: bin)
        try #require(try reread.signatures().first).signature.write(to: sig)
        let publicKey = try Fixtures.url("export/ens-example/public.pem").path
        let run = try ExternalTool.openssl.run([
            "dgst", "-sha256", "-verify", publicKey, "-signature", sig.path, bin.path,
        ])
        #expect(run.status == 0, "\(String(decoding: run.stdout + run.stderr, as: UTF8.self))")
        #expect(run.output.contains("Verified OK"))
        // And openssl refuses it once a byte of the file changes.
        var tampered = reread.exportBinary
        tampered[tampered.count - 1] ^= 0x01
        try tampered.write(to: bin)
        let bad = try ExternalTool.openssl.run([
            "dgst", "-sha256", "-verify", publicKey, "-signature", sig.path, bin.path,
        ])
        #expect(bad.status != 0)
    }

    @Test(
        "the ENS example keys, re-exported and signed, decode with protoc",
        .enabled(if: ExternalTool.protoc.isAvailable))
    func writesWhatProtocDecodes() throws {
        let reread = try ENExportArchive(data: try reexportedENSExample().written.zipData())
        let export = try reread.keyExport()
        let decoded = try protocDecode(reread.exportBinary.dropFirst(16), type: "TemporaryExposureKeyExport")
        let keys = decoded.messages("keys")
        #expect(keys.count == 2)
        for (text, key) in zip(keys, export.keys) {
            #expect(text.bytes("key_data") == key.keyData)
            #expect(text.scalar("rolling_period") == String(key.rollingPeriod))
            #expect(text.scalar("rolling_start_interval_number") == String(key.rollingStartNumber))
        }
        #expect(decoded.string("region") == "US")
        let info = try #require(decoded.messages("signature_infos").first)
        #expect(info.string("verification_key_id") == "some_id")
        #expect(info.string("signature_algorithm") == "1.2.840.10045.4.3.2")
    }

    @Test(
        "the written zip holds export.bin then export.sig, as unzip lists them",
        .enabled(if: ExternalTool.unzip.isAvailable))
    func zipEntryOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let zipURL = directory.url.appendingPathComponent("export.zip")
        try reexportedENSExample().written.write(to: zipURL)
        let listing = try ExternalTool.unzip.run(["-Z1", zipURL.path])
        #expect(listing.output == "export.bin\nexport.sig\n")
    }

    @Test(
        "every field, including report type, days since onset and variant, decodes with protoc as written",
        .enabled(if: ExternalTool.protoc.isAvailable))
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
        let decoded = try protocDecode(binary.dropFirst(16), type: "TemporaryExposureKeyExport")
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

    /// A signed file of `keyCount` random keys, written to `export.zip` in `directory`.
    func writtenZip(keyCount: Int, in directory: TemporaryDirectory) throws -> (ENExportArchive, URL) {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 11)
        let keys = (0..<keyCount).map { _ in TestKeys.random(using: &rng) }
        let writer = ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [try ensSigner()])
        let archive = try #require(try writer.archives(keys: keys, using: &rng).first)
        let zipURL = directory.url.appendingPathComponent("export.zip")
        try archive.write(to: zipURL)
        #expect(try ENExportArchive(contentsOf: zipURL) == archive)
        return (archive, zipURL)
    }

    /// 150,000 keys make an export.bin of about 4 MiB, deflated in several pieces in parallel.
    @Test(
        "written zips pass unzip -t, with export.bin then export.sig", .enabled(if: ExternalTool.unzip.isAvailable),
        arguments: [5_000, 150_000])
    func zipsPassUnzip(keyCount: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (_, zipURL) = try writtenZip(keyCount: keyCount, in: directory)
        let test = try ExternalTool.unzip.run(["-t", zipURL.path])
        #expect(test.status == 0, "\(String(decoding: test.stdout + test.stderr, as: UTF8.self))")
        #expect(test.output.contains("No errors detected"))
        #expect(try ExternalTool.unzip.run(["-Z1", zipURL.path]).output == "export.bin\nexport.sig\n")
    }

    @Test(
        "written zips pass Python's zipfile, which extracts exactly export.bin and export.sig",
        .enabled(if: ExternalTool.python3.isAvailable), arguments: [5_000, 150_000])
    func zipsPassPythonZipfile(keyCount: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (archive, zipURL) = try writtenZip(keyCount: keyCount, in: directory)
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                assert [i.filename for i in z.infolist()] == ["export.bin", "export.sig"], z.namelist()
                assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())
                open(sys.argv[2], "wb").write(z.read("export.bin"))
                open(sys.argv[3], "wb").write(z.read("export.sig"))
            """
        let bin = directory.url.appendingPathComponent("export.bin")
        let sig = directory.url.appendingPathComponent("export.sig")
        let python = try ExternalTool.python3.run(["-c", script, zipURL.path, bin.path, sig.path])
        #expect(python.status == 0, "\(String(decoding: python.stderr, as: UTF8.self))")
        #expect(try Data(contentsOf: bin) == archive.exportBinary)
        #expect(try Data(contentsOf: sig) == archive.signatureFile)
        let check = try ExternalTool.python3.run(["-m", "zipfile", "-t", zipURL.path])
        #expect(check.status == 0, "\(String(decoding: check.stdout + check.stderr, as: UTF8.self))")
    }

    @Test("empty, incompressible and repetitive entries, in one deflate piece or several, zip and read back")
    func zipEdgeCases() throws {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 12)
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
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: UInt64(seed))
        let keys = (0..<Int.random(in: 0...300, using: &rng)).map { _ in TestKeys.random(using: &rng) }
        let revised = (0..<Int.random(in: 0...20, using: &rng)).map { _ in TestKeys.random(using: &rng) }
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
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 42)
        let keys = (0..<200).map { _ in TestKeys.random(using: &rng) }
        let writer = ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [try ensSigner()])
        let first = try writer.archives(keys: keys)[0].keyExport().keys
        let second = try writer.archives(keys: keys)[0].keyExport().keys
        #expect(first != keys)
        #expect(first != second)
        #expect(sorted(first) == sorted(keys))
    }

    @Test("files split at the key limit and the size limit, with distinct end timestamps")
    func splits() throws {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 7)
        let keys = (0..<1000).map { _ in TestKeys.random(using: &rng) }
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
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 3)
        let keys = (0..<20).map { _ in TestKeys.random(using: &rng) }
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

    @Test("invalid keys and parameters are refused with badParameter, naming the key and field")
    func refusesBadParameters() throws {
        let signer = try ensSigner()
        let good = ENTemporaryExposureKey(keyData: Data(count: 16), rollingStartNumber: 2_650_000)
        let cases: [(ENExportWriter, [ENTemporaryExposureKey], ENError.Context)] = [
            (ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: []), [good], .init()),
            (
                ENExportWriter(
                    region: "US", startTimestamp: 0, endTimestamp: 1, signers: Array(repeating: signer, count: 11)),
                [good], .init()
            ),
            (ENExportWriter(region: "US", startTimestamp: 5, endTimestamp: 1, signers: [signer]), [good], .init()),
            (
                ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [signer]),
                [good, ENTemporaryExposureKey(keyData: Data(count: 15), rollingStartNumber: 1)],
                .init(section: "keys", index: 1, field: "keyData")
            ),
            (
                ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [signer]),
                [ENTemporaryExposureKey(keyData: Data(count: 16), rollingStartNumber: 1, rollingPeriod: 145)],
                .init(section: "keys", index: 0, field: "rollingPeriod")
            ),
            (
                ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [signer]),
                [
                    ENTemporaryExposureKey(
                        keyData: Data(count: 16), rollingStartNumber: ENIntervalNumber(0x8000_0000))
                ],
                .init(section: "keys", index: 0, field: "rollingStartNumber")
            ),
        ]
        for (writer, keys, context) in cases {
            do {
                _ = try writer.archives(keys: keys)
                Issue.record("expected a refusal at \(context)")
            } catch {
                #expect(error.code == .badParameter)
                #expect(error.context == context, "\(error)")
            }
        }
        // A revised key is named in its own section.
        let writer = ENExportWriter(region: "US", startTimestamp: 0, endTimestamp: 1, signers: [signer])
        let bad = ENTemporaryExposureKey(keyData: Data(count: 16), rollingStartNumber: 1, rollingPeriod: 0)
        #expect(throws: ENError(.badParameter)) { try writer.archives(keys: [good], revisedKeys: [good, bad]) }
        do {
            _ = try writer.archives(keys: [good], revisedKeys: [good, bad])
        } catch {
            #expect(error.context == .init(section: "revised_keys", index: 1, field: "rollingPeriod"))
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
