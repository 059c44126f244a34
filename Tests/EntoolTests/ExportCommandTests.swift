import ENTestSupport
import Foundation
import Testing

@Suite("entool export")
struct ExportCommandTests {
    @Test("inspect -> export -> verify -> inspect round-trips the ENS example keys")
    func roundTrip() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inspected = try runEntool([
            "inspect", try Fixtures.url("export/ens-example/testExport-2-records-1-of-1.zip").path, "--json",
        ])
        let original = try #require(try inspected.json() as? [String: Any])
        let keysFile = dir.appendingPathComponent("keys.json")
        try JSONSerialization.data(withJSONObject: original["keys"]!).write(to: keysFile)
        let output = dir.appendingPathComponent("out.zip")
        let exported = try runEntool([
            "export", "--keys", keysFile.path, "--signing-key", try Fixtures.url("export/ens-example/private.pem").path,
            "--key-id", "some_id", "--key-version", "1", "--region", "US", "--output", output.path,
            "--start-timestamp", "1590159600", "--end-timestamp", "1590246000", "--json",
        ])
        #expect(exported.status == 0, "\(exported.stderr)")
        let files = try #require((try exported.json() as? [String: Any])?["files"] as? [[String: Any]])
        #expect(files.count == 1)
        #expect(files.first?["path"] as? String == output.path)
        let verified = try runEntool([
            "verify", output.path, "--public-key", try Fixtures.url("export/ens-example/public.pem").path,
            "--key-id", "some_id", "--key-version", "1",
        ])
        #expect(verified.status == 0, "\(verified.stderr)")
        let reread = try #require(try runEntool(["inspect", output.path, "--json"]).json() as? [String: Any])
        for field in ["startTimestamp", "endTimestamp", "region", "batchNum", "batchSize"] {
            #expect("\(reread[field]!)" == "\(original[field]!)", "\(field)")
        }
        func keySet(_ object: [String: Any]) -> Set<String> {
            Set(
                (object["keys"] as? [[String: Any]] ?? []).map { key in
                    key.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
                })
        }
        #expect(keySet(reread) == keySet(original))
        #expect(keySet(reread).count == 2)
    }

    @Test("the written zip unzips with Info-ZIP's unzip", .enabled(if: ExternalTool.unzip.isAvailable))
    func unzips() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let keysFile = dir.url.appendingPathComponent("keys.json")
        try Data(#"[{"keyData": "75c734c6dd1a782de7a965da5eb93125", "rollingStartIntervalNumber": 2642976}]"#.utf8)
            .write(to: keysFile)
        let output = dir.url.appendingPathComponent("out.zip")
        let exported = try runEntool([
            "export", "--keys", keysFile.path, "--signing-key",
            try Fixtures.url("export/ens-example/private.pem").path, "--key-id", "some_id", "--key-version", "1",
            "--region", "US", "--output", output.path,
        ])
        #expect(exported.status == 0, "\(exported.stderr)")
        let unzip = try ExternalTool.unzip.run(["-q", output.path, "-d", dir.path("unzipped")])
        #expect(unzip.status == 0)
        #expect(FileManager.default.fileExists(atPath: dir.path("unzipped/export.sig")))
    }

    @Test("splits at --max-keys-per-file into numbered files with distinct end timestamps")
    func splits() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var keys: [[String: Any]] = []
        for i in 0..<25 {
            let start: Int = 2_650_000 + i * 144
            let days: Int = i - 14 + (i > 14 ? -14 : 0)
            keys.append([
                "keyData": String(format: "%032x", i + 1), "rollingStartIntervalNumber": start,
                "reportType": 1, "daysSinceOnsetOfSymptoms": days,
            ])
        }
        let keysFile = dir.appendingPathComponent("keys.json")
        try JSONSerialization.data(withJSONObject: keys).write(to: keysFile)
        let result = try runEntool([
            "export", "--keys", keysFile.path, "--signing-key", try Fixtures.url("export/ens-example/private.pem").path,
            "--key-id", "some_id", "--key-version", "1", "--region", "DE",
            "--output", dir.appendingPathComponent("batch.zip").path, "--max-keys-per-file", "10",
            "--end-timestamp", "1000000", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try #require((try result.json() as? [String: Any])?["files"] as? [[String: Any]])
        #expect(files.map { $0["keyCount"] as? Int } == [10, 10, 5])
        #expect(Set(files.compactMap { $0["endTimestamp"] as? Int }) == [1_000_000, 1_000_001, 1_000_002])
        #expect(
            files.compactMap { ($0["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } }
                == ["batch-1.zip", "batch-2.zip", "batch-3.zip"])
        var seen: [[String: Any]] = []
        for file in files {
            let path = try #require(file["path"] as? String)
            #expect(
                try runEntool(["verify", path, "--public-key", try Fixtures.url("export/ens-example/public.pem").path])
                    .status == 0)
            seen += try #require(
                (try runEntool(["inspect", path, "--json"]).json() as? [String: Any])?["keys"] as? [[String: Any]])
        }
        #expect(Set(seen.compactMap { $0["keyData"] as? String }) == Set(keys.compactMap { $0["keyData"] as? String }))
        #expect(seen.allSatisfy { $0["reportType"] as? Int == 1 })
        #expect(
            Set(seen.compactMap { $0["daysSinceOnsetOfSymptoms"] as? Int })
                == Set(keys.compactMap { $0["daysSinceOnsetOfSymptoms"] as? Int }))
    }

    @Test("bad keys, bad JSON and a bad signing key exit 2 naming the problem, and write nothing")
    func badInput() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.zip")
        func run(_ keysJSON: String, key: String? = nil) throws -> EntoolResult {
            let keysFile = dir.appendingPathComponent("keys.json")
            try Data(keysJSON.utf8).write(to: keysFile)
            return try runEntool([
                "export", "--keys", keysFile.path, "--signing-key",
                try key ?? Fixtures.url("export/ens-example/private.pem").path,
                "--key-id", "1", "--key-version", "v1", "--region", "US", "--output", output.path,
            ])
        }
        let short = try run(#"[{"keyData": "00112233", "rollingStartIntervalNumber": 1}]"#)
        #expect(short.status == 2)
        #expect(short.stderr.contains("keys[0].keyData"))
        let period = try run(
            #"[{"keyData": "00112233445566778899aabbccddeeff", "rollingStartIntervalNumber": 1, "rollingPeriod": 0}]"#)
        #expect(period.status == 2)
        #expect(period.stderr.contains("keys[0].rollingPeriod"))
        let report = try run(
            #"[{"keyData": "00112233445566778899aabbccddeeff", "rollingStartIntervalNumber": 1, "reportType": 9}]"#)
        #expect(report.status == 2)
        #expect(report.stderr.contains("reportType"))
        let notJSON = try run("{oops")
        #expect(notJSON.status == 2)
        let badKey = try run(#"[]"#, key: try Fixtures.url("export/ens-example/public.pem").path)
        #expect(badKey.status == 2)
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
