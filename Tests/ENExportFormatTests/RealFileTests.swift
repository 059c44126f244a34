import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

@Suite("Real export files")
struct RealFileTests {
    @Test("every real file parses, with the documented key count and region", arguments: RealExportFile.all)
    func parses(file: RealExportFile) throws {
        let archive = try ENExportArchive(data: try Fixtures.data(file.path))
        #expect((archive.signatureFile != nil) == file.isSigned)
        let export = try archive.keyExport()
        #expect(export.keys.count == file.keyCount)
        #expect(export.revisedKeys.isEmpty)
        #expect(export.region == file.region)
        #expect(export.batchNumber == 1)
        #expect(export.batchSize == 1)
        for key in export.keys {
            #expect(key.keyData.count == 16)
            #expect((1...144).contains(key.rollingPeriod))
        }
    }

    @Test(
        "ENKeyExport and the streaming scanner read what swift-protobuf reads, on every real file",
        arguments: RealExportFile.all)
    func agreesWithSwiftProtobuf(file: RealExportFile) throws {
        let archive = try ENExportArchive(data: try Fixtures.data(file.path))
        let export = try archive.keyExport()
        #expect(export == SwiftProtobufOracle.export(archive.exportBinary))
        let scanner = try archive.keyScanner()
        #expect(scanner.keyCount == export.keys.count)
        #expect(scanner.revisedKeyCount == 0)
        var metadata = export
        metadata.keys = []
        metadata.revisedKeys = []
        #expect(scanner.metadata == metadata)
        for chunkSize in [1, 7, 4096] {
            var chunks = scanner.chunks(ofSize: chunkSize)
            var keys: [ENTemporaryExposureKey] = []
            while let chunk = try chunks.next() {
                #expect(chunk.count <= chunkSize)
                keys += chunk
            }
            #expect(keys == export.keys)
        }
        if let signatureFile = archive.signatureFile {
            let signatures = try archive.signatures()
            #expect(!signatures.isEmpty)
            #expect(signatures == SwiftProtobufOracle.signatures(signatureFile))
        }
    }

    @Test("every real file re-encodes as swift-protobuf encodes it, byte for byte", arguments: RealExportFile.all)
    func reencodes(file: RealExportFile) throws {
        let archive = try ENExportArchive(data: try Fixtures.data(file.path))
        let export = try archive.keyExport()
        let binary = try export.exportBinary()
        #expect(binary == (try SwiftProtobufOracle.exportBinary(export)))
        #expect(try ENKeyExport(exportBinary: binary) == export)
        let signatures = try archive.signatures()
        #expect(try ENExportSignature.encodeList(signatures) == SwiftProtobufOracle.signatureFile(signatures))
    }

    @Test(
        "key counts and every key field match what protoc --decode reports",
        .enabled(if: ExternalTool.protoc.isAvailable), arguments: RealExportFile.all)
    func matchesProtoc(file: RealExportFile) throws {
        let archive = try ENExportArchive(data: try Fixtures.data(file.path))
        let decoded = try protocDecode(archive.exportBinary.dropFirst(16), type: "TemporaryExposureKeyExport")
        let export = try archive.keyExport()
        #expect(decoded.scalar("start_timestamp") == export.startTimestamp.map(String.init))
        #expect(decoded.scalar("end_timestamp") == export.endTimestamp.map(String.init))
        #expect(decoded.string("region") == export.region)
        let keys = decoded.messages("keys")
        #expect(keys.count == file.keyCount)
        #expect(keys.count == export.keys.count)
        for (text, key) in zip(keys, export.keys) {
            #expect(text.bytes("key_data") == key.keyData)
            #expect(text.scalar("rolling_start_interval_number") == String(key.rollingStartNumber))
            #expect(UInt32(text.scalar("rolling_period") ?? "144") == key.rollingPeriod)
            #expect(UInt8(text.scalar("transmission_risk_level") ?? "0") == key.transmissionRiskLevel)
        }
        let infos = decoded.messages("signature_infos")
        #expect(infos.count == export.signatureInfos.count)
        for (text, info) in zip(infos, export.signatureInfos) {
            #expect(text.string("verification_key_id") == info.verificationKeyID)
            #expect(text.string("verification_key_version") == info.verificationKeyVersion)
            #expect(text.string("signature_algorithm") == info.signatureAlgorithm)
        }
        if let signatureFile = archive.signatureFile {
            let list = try protocDecode(signatureFile, type: "TEKSignatureList")
            let signatures = try archive.signatures()
            #expect(list.messages("signatures").count == signatures.count)
            for (text, signature) in zip(list.messages("signatures"), signatures) {
                #expect(text.bytes("signature") == signature.signature)
            }
        }
    }

    @Test("the ENI sample has no rolling_period and reads as 144")
    func absentRollingPeriodIs144() throws {
        let export = try ENExportArchive(data: try Fixtures.data("export/en-internals/sample_diagnosis_key_file.zip"))
            .keyExport()
        #expect(export.keys.allSatisfy { $0.rollingPeriod == 144 })
        #expect(export.startTimestamp == 1_593_633_600)
        #expect(export.endTimestamp == 1_593_633_900)
        #expect(export.signatureInfos.first?.verificationKeyID == "310")
    }

    @Test("the ENS example holds the documented keys (keys.json)")
    func ensExampleKeys() throws {
        let export = try ENExportArchive(data: try Fixtures.data("export/ens-example/testExport-2-records-1-of-1.zip"))
            .keyExport()
        #expect(export.startTimestamp == 1_590_159_600)
        #expect(export.endTimestamp == 1_590_246_000)
        let byData = Dictionary(uniqueKeysWithValues: export.keys.map { ($0.keyData.hexString, $0) })
        let first = try #require(byData["172fc480e598490c34177604339b1543"])
        #expect(first.rollingStartNumber == 2_649_980)
        #expect(first.rollingPeriod == 1)
        #expect(first.transmissionRiskLevel == 8)
        let second = try #require(byData["2b63053ac483238de176169e861f3dcd"])
        #expect(second.rollingStartNumber == 2_649_866)
        #expect(second.rollingPeriod == 114)
        #expect(second.transmissionRiskLevel == 1)
        #expect(
            export.signatureInfos == [
                ENExportSignatureInfo(verificationKeyID: "some_id", verificationKeyVersion: "1")
            ])
    }

    @Test(
        "both ENS examples hold exactly the keys of the keys.json that produced them",
        arguments: [
            "export/ens-example", "export/ens-example-2020-05-20",
        ])
    func ensKeysJSON(directory: String) throws {
        struct Published: Decodable {
            struct Key: Decodable {
                var key: String
                var rollingStartNumber: UInt32
                var rollingPeriod: UInt32
                var transmissionRisk: UInt8
            }
            var temporaryExposureKeys: [Key]
        }
        let published = try JSONDecoder().decode(Published.self, from: try Fixtures.data("\(directory)/keys.json"))
        let expected = try published.temporaryExposureKeys.map { key in
            ENTemporaryExposureKey(
                keyData: try #require(Data(base64Encoded: key.key)),
                rollingStartNumber: ENIntervalNumber(key.rollingStartNumber),
                rollingPeriod: key.rollingPeriod, transmissionRiskLevel: key.transmissionRisk)
        }
        let export = try ENExportArchive(data: try Fixtures.data("\(directory)/testExport-2-records-1-of-1.zip"))
            .keyExport()
        #expect(sorted(export.keys) == sorted(expected))
    }

    @Test("legacy SignatureInfo fields 1 and 2 are skipped")
    func legacySignatureInfo() throws {
        let cwa = try ENExportArchive(data: try Fixtures.data("export/cwa-android/keys.bin.zip"))
        #expect(try cwa.signatures().first?.signatureInfo?.verificationKeyID == "262")
        let android = try ENExportArchive(
            data: try Fixtures.data("export/en-android/sample_diagnosis_key_file_174cf0d.zip"))
        let info = try #require(try android.signatures().first?.signatureInfo)
        #expect(info.verificationKeyID == nil)
        #expect(info.verificationKeyVersion == "v1")
        #expect(info.signatureAlgorithm == "ECDSA p-256 SHA-256")
        // CWA rolling starts are not aligned to 144.
        let keys = try cwa.keyExport().keys
        #expect(keys.contains { !$0.rollingStartNumber.isRollingStart })
    }

    @Test("the bare ENI export.bin is the export.bin inside the ENA sample zip")
    func bareMatchesZipped() throws {
        let bare = try ENExportArchive(data: try Fixtures.data("export/en-internals/app_raw_export.bin"))
        let zipped = try ENExportArchive(
            data: try Fixtures.data("export/en-android/sample_diagnosis_key_file_174cf0d.zip"))
        #expect(bare.exportBinary == zipped.exportBinary)
        #expect(bare.signatureFile == nil)
    }

    @Test("reading from a URL gives the same result as reading from memory")
    func readsFromURL() throws {
        let url = try Fixtures.url("export/en-internals/sample_diagnosis_key_file.zip")
        let fromURL = try ENExportArchive(contentsOf: url)
        #expect(fromURL == (try ENExportArchive(data: try Data(contentsOf: url))))
    }
}
