import ENTestSupport
import Foundation
import Testing

@Suite("entool inspect")
struct InspectCommandTests {
    @Test("prints the ENS example exactly as DESIGN specifies")
    func ensExample() throws {
        let result = try runEntool([
            "inspect", try Fixtures.url("export/ens-example/testExport-2-records-1-of-1.zip").path, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["startTimestamp"] as? Int == 1_590_159_600)
        #expect(object["endTimestamp"] as? Int == 1_590_246_000)
        #expect(object["region"] as? String == "US")
        #expect(object["batchNum"] as? Int == 1)
        #expect(object["batchSize"] as? Int == 1)
        let infos = try #require(object["signatureInfos"] as? [[String: String]])
        #expect(
            infos == [
                [
                    "verificationKeyId": "some_id", "verificationKeyVersion": "1",
                    "signatureAlgorithm": "1.2.840.10045.4.3.2",
                ]
            ])
        let keys = try #require(object["keys"] as? [[String: Any]])
        #expect(keys.count == 2)
        let first = try #require(keys.first { $0["keyData"] as? String == "172fc480e598490c34177604339b1543" })
        #expect(first["rollingStartIntervalNumber"] as? Int == 2_649_980)
        #expect(first["rollingPeriod"] as? Int == 1)
        #expect(first["transmissionRiskLevel"] as? Int == 8)
        // Absent optional fields are omitted.
        #expect(first["reportType"] == nil)
        #expect(first["daysSinceOnsetOfSymptoms"] == nil)
        #expect((object["revisedKeys"] as? [Any])?.isEmpty == true)
    }

    @Test("an absent rolling period prints 144")
    func effectiveRollingPeriod() throws {
        let result = try runEntool([
            "inspect", try Fixtures.url("export/en-internals/sample_diagnosis_key_file.zip").path, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        let keys = try #require(object["keys"] as? [[String: Any]])
        #expect(keys.count == 140)
        #expect(keys.allSatisfy { $0["rollingPeriod"] as? Int == 144 })
    }

    @Test("reads a bare export.bin, and prints text without --json")
    func bareAndText() throws {
        let path = try Fixtures.url("export/generated/bare-export.bin").path
        let json = try runEntool(["inspect", path, "--json"])
        #expect(json.status == 0)
        let object = try #require(try json.json() as? [String: Any])
        #expect(object["region"] as? String == "222")
        #expect((object["keys"] as? [Any])?.count == 3)
        let text = try runEntool(["inspect", path])
        #expect(text.status == 0)
        #expect(text.output.contains("keys:        3"))
        #expect(text.output.contains("key 4083ed8796b0f730f6268e97f2a1dc6a start 2663280 period 144 risk 8"))
    }

    @Test("malformed and missing files exit 2 naming the file, the entry and the field")
    func badInput() throws {
        let bombPath = try Fixtures.url("export/generated/bomb-inflated.zip").path
        let bomb = try runEntool(["inspect", bombPath])
        #expect(bomb.status == 2)
        #expect(
            bomb.stderr.hasPrefix("error: badFormat: \(bombPath): export.bin.uncompressed size: "),
            "\(bomb.stderr)")
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junk = dir.appendingPathComponent("junk.bin")
        try Data("EK Export v2    \u{1}".utf8).write(to: junk)
        let header = try runEntool(["inspect", junk.path])
        #expect(header.status == 2)
        #expect(header.stderr.hasPrefix("error: badFormat: \(junk.path): export.bin.header: "), "\(header.stderr)")
        let missing = try runEntool(["inspect", dir.appendingPathComponent("nope.zip").path])
        #expect(missing.status == 2)
        #expect(
            missing.stderr.hasPrefix("error: badParameter: \(dir.appendingPathComponent("nope.zip").path): "),
            "\(missing.stderr)")
    }
}
