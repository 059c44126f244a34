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

    @Test("bad keys, bad JSON and a bad signing key exit 2 naming the key, the member and the place, and write nothing")
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
        let good = #""keyData": "00112233445566778899aabbccddeeff", "rollingStartIntervalNumber": 1"#
        // Each refusal is matched on its code and its context (the file, the list, the key's index, the member),
        // which entool prints before the reason: `error: <code>: <context>: <reason>`.
        let keysPath = dir.appendingPathComponent("keys.json").path
        let cases: [(json: String, code: String, context: String)] = [
            (#"[{"keyData": "00112233", "rollingStartIntervalNumber": 1}]"#, "badParameter", "keys[0].keyData"),
            (
                #"[{"keyData": "00112233445566778899aabbccddeefg", "rollingStartIntervalNumber": 1}]"#, "badParameter",
                "keys[0].keyData"
            ),
            (
                #"[{"keyData": "0011223344556677889/aabbccddeeff", "rollingStartIntervalNumber": 1}]"#, "badParameter",
                "keys[0].keyData"
            ),
            ("[{\(good), \"rollingPeriod\": 0}]", "badParameter", "keys[0].rollingPeriod"),
            ("[{\(good)}, {\(good), \"rollingPeriod\": 145}]", "badParameter", "keys[1].rollingPeriod"),
            (
                "{\"keys\": [],\n \"revisedKeys\": [{\(good), \"reportType\": 9}]}", "badParameter",
                "revisedKeys[0].reportType"
            ),
            ("[{\(good), \"transmissionRiskLevel\": 9}]", "badParameter", "keys[0].transmissionRiskLevel"),
            ("[{\(good), \"daysSinceOnsetOfSymptoms\": -15}]", "badParameter", "keys[0].daysSinceOnsetOfSymptoms"),
            ("[{\(good), \"variantOfConcern\": 5}]", "badParameter", "keys[0].variantOfConcern"),
            ("[{\(good), \"rollingPeriod\": 14.5}]", "badParameter", "keys[0].rollingPeriod"),
            (
                #"[{"keyData": "00112233445566778899aabbccddeeff", "rollingStartIntervalNumber": -1}]"#, "badParameter",
                "keys[0].rollingStartIntervalNumber"
            ),
            (
                #"[{"keyData": "00112233445566778899aabbccddeeff", "rollingStartIntervalNumber": 2147483648}]"#,
                "badParameter", "keys[0].rollingStartIntervalNumber"
            ),
            (
                #"[{"keyData": "00112233445566778899aabbccddeeff"}]"#, "badFormat",
                "keys[0].rollingStartIntervalNumber"
            ),
            (#"[{"rollingStartIntervalNumber": 1}]"#, "badFormat", "keys[0].keyData"),
            (#"[{"keyData": 5, "rollingStartIntervalNumber": 1}]"#, "badFormat", "keys[0].keyData"),
            ("[{\(good), \"rollingPeriod\": \"144\"}]", "badFormat", "keys[0].rollingPeriod"),
            ("[{\(good), \"keyData\": \"00\"}]", "badFormat", "keys[0].keyData"),
            ("[{\(good)}, 3]", "badFormat", "keys[1]"),
            ("[{\(good)} {\(good)}]", "badFormat", "keys[0]"),
            ("[{\(good)},]", "badFormat", "keys[1]"),
            ("[{\(good), \"note\": tru}]", "badFormat", "keys[0]"),
            ("[{\(good), \"note\": \"a\tb\"}]", "badFormat", "keys[0]"),
            ("[{\(good)}", "badFormat", "keys[0]"),
            ("[{\(good)}, {\(good)}, {\(good)", "badFormat", "keys[2]"),
            (#"{"keys": {}}"#, "badFormat", "keys"),
            (String(repeating: "[", count: 100), "badFormat", "keys[0]"),
        ]
        for (json, code, context) in cases {
            let result = try run(json)
            #expect(result.status == 2, "\(json): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error: \(code): \(keysPath): \(context): "), "\(json): \(result.stderr)")
        }
        // Syntax and shape errors outside any key name the file only.
        let outside = [
            "[] []", "{oops", #"{"revisedKeys": []}"#, "\"keys\"", "", "{\"x\": " + String(repeating: "[", count: 100),
        ]
        for json in outside {
            let result = try run(json)
            #expect(result.status == 2, "\(json): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error: badFormat: \(keysPath): "), "\(json): \(result.stderr)")
        }
        let missing = try runEntool([
            "export", "--keys", dir.appendingPathComponent("none.json").path, "--signing-key",
            try Fixtures.url("export/ens-example/private.pem").path, "--key-id", "1", "--key-version", "v1", "--region",
            "US", "--output", output.path,
        ])
        #expect(missing.status == 2)
        #expect(
            missing.stderr.hasPrefix("error: badParameter: \(dir.appendingPathComponent("none.json").path): "),
            "\(missing.stderr)")
        let badKey = try run(#"[]"#, key: try Fixtures.url("export/ens-example/public.pem").path)
        #expect(badKey.status == 2)
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("KEYS.json is read as JSONSerialization reads it: escapes, null, number forms, unknown members, layout")
    func readsLikeJSONSerialization() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 31)
        var keys: [[String: Any]] = []
        var revised: [[String: Any]] = []
        for index in 0..<400 {
            var key: [String: Any] = [
                "keyData": (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }
                    .joined().uppercased(),
                "rollingStartIntervalNumber": Int.random(in: 0...Int(Int32.max - 144), using: &rng),
            ]
            if index % 2 == 0 { key["rollingPeriod"] = Int.random(in: 1...144, using: &rng) }
            if index % 3 == 0 { key["transmissionRiskLevel"] = Int.random(in: 0...8, using: &rng) }
            if index % 4 == 0 { key["reportType"] = Int.random(in: 0...5, using: &rng) }
            if index % 5 == 0 { key["daysSinceOnsetOfSymptoms"] = Int.random(in: -14...14, using: &rng) }
            if index % 6 == 0 { key["variantOfConcern"] = Int.random(in: 0...4, using: &rng) }
            if index % 13 == 0 { key["rollingPeriod"] = 144 }
            if index % 7 == 0 { key["rollingPeriod"] = NSNull() }
            if index % 11 == 0 { key["comment"] = ["nested": [1, 2.5, true, NSNull(), "é \"quoted\" \\ \u{1F600}"]] }
            if index % 2 == 1 { revised.append(key) } else { keys.append(key) }
        }
        let object: [String: Any] = ["keys": keys, "revisedKeys": revised, "region": "US", "batchNum": 1]
        var text = String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]),
            as: UTF8.self)
        // Other spellings of the same values: an escaped hex digit, 144.0 and 1.44e2 for 144.
        for spelling in ["1.44e2", "144.0"] {
            let period = try #require(text.range(of: "\"rollingPeriod\" : 144,"))
            text.replaceSubrange(period, with: "\"rollingPeriod\" : \(spelling),")
        }
        let keyData = try #require(text.range(of: "\"keyData\" : \""))
        let digit = text.index(after: keyData.upperBound)
        text.replaceSubrange(
            keyData.upperBound..<digit, with: "\\u00" + String(format: "%02x", text[keyData.upperBound].asciiValue!))
        #expect(text.contains("1.44e2") && text.contains("144.0") && text.contains("\\u00"))
        let keysFile = dir.appendingPathComponent("keys.json")
        try Data(text.utf8).write(to: keysFile)
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let output = dir.appendingPathComponent("out.zip")
        let result = try runEntool([
            "export", "--keys", keysFile.path, "--signing-key", try Fixtures.url("export/ens-example/private.pem").path,
            "--key-id", "1", "--key-version", "v1", "--region", "US", "--output", output.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let inspected = try #require(try runEntool(["inspect", output.path, "--json"]).json() as? [String: Any])
        func normalized(_ list: Any?) -> Set<String> {
            Set(
                (list as? [[String: Any]] ?? []).map { key in
                    func int(_ name: String) -> Int? { (key[name] as? NSNumber)?.intValue }
                    let hex = (key["keyData"] as? String ?? "").lowercased()
                    return [
                        hex, "\(int("rollingStartIntervalNumber") ?? -1)", "\(int("rollingPeriod") ?? 144)",
                        "\(int("transmissionRiskLevel") ?? 0)", "\(int("reportType") ?? 0)",
                        "\(int("daysSinceOnsetOfSymptoms") ?? 99)", "\(int("variantOfConcern") ?? 0)",
                    ].joined(separator: "/")
                })
        }
        #expect(normalized(inspected["keys"]) == normalized(expected["keys"]))
        #expect(normalized(inspected["revisedKeys"]) == normalized(expected["revisedKeys"]))
        #expect(normalized(inspected["keys"]).count == 200)
    }
}
