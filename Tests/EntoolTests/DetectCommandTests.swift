import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

/// A device that heard another for 20 minutes, and a health authority that published the other's key: the key
/// and its identifiers from ENCrypto, the file from ENExportWriter, the signing key from `entool keygen`.
private struct Encounter {
    let directory: TemporaryDirectory
    let publicKey: String
    let signingKey: P256SigningKey
    let sightings: String
    let key: ENTemporaryExposureKey

    /// 2020-04-02 10:00 UTC, interval 2,643,036 of the day starting at 2,642,976 (the official vectors' day).
    static let start = Date(timeIntervalSince1970: 2_642_976 * 600 + 10 * 3600)
    /// Two hours after the encounter.
    static let now = "2020-04-02T12:00:00Z"

    /// Six sightings, 4 minutes apart from 10:00 to 10:20, at -60 dBm from a device sending TX power 0 dBm
    /// (attenuation 60 dB).
    init() throws {
        directory = try TemporaryDirectory(prefix: "DetectCommandTests")
        publicKey = directory.path("public.pem")
        let privateKey = directory.path("private.pem")
        let keygen = try runEntool(["keygen", "--private-key", privateKey, "--public-key", publicKey])
        try #require(keygen.status == 0, "\(keygen.stderr)")
        signingKey = try P256SigningKey(pemRepresentation: String(contentsOfFile: privateKey, encoding: .utf8))

        key = ENTemporaryExposureKey(
            keyData: Data((0..<16).map { UInt8($0 * 7 + 3) }), rollingStartNumber: 2_642_976,
            transmissionRiskLevel: 4, diagnosisReportType: .confirmedTest, daysSinceOnsetOfSymptoms: 0)
        let identifierKey = try RollingProximityIdentifierKey(temporaryExposureKey: key)
        let metadataKey = try AssociatedEncryptedMetadataKey(temporaryExposureKey: key)
        let formatter = ISO8601DateFormatter()
        var entries: [[String: Any]] = []
        for minute in stride(from: 0, through: 20, by: 4) {
            let moment = Self.start.addingTimeInterval(TimeInterval(minute * 60))
            let rpi = try identifierKey.identifier(for: ENIntervalNumber(date: moment))
            let aem = try metadataKey.encrypt(BluetoothMetadata(txPower: 0), for: rpi)
            entries.append([
                "rpi": Data(rpi.bytes).hexString, "aem": Data(aem.bytes).hexString,
                "timestamp": formatter.string(from: moment), "rssi": -60,
            ])
        }
        sightings = directory.path("sightings.json")
        try JSONSerialization.data(withJSONObject: ["sightings": entries]).write(to: URL(fileURLWithPath: sightings))
    }

    /// The key in a signed export, as a zip or as a bare pair.
    func archive(signer: P256SigningKey? = nil) throws -> ENExportArchive {
        let start = UInt64(Self.start.timeIntervalSince1970)
        let writer = ENExportWriter(
            region: "310", startTimestamp: start, endTimestamp: start + 7200,
            signers: [ENExportSigner(signingKey: signer ?? signingKey, keyID: "310", keyVersion: "v1")])
        return try #require(try writer.archives(keys: [key]).first)
    }

    func writeZip(_ name: String, signer: P256SigningKey? = nil) throws -> String {
        let url = directory.url.appendingPathComponent(name)
        try archive(signer: signer).write(to: url)
        return url.path
    }

    func writePair(_ name: String) throws -> (bin: String, sig: String) {
        let archive = try archive()
        let bin = directory.path("\(name).bin")
        let sig = directory.path("\(name).sig")
        try archive.exportBinary.write(to: URL(fileURLWithPath: bin))
        try #require(archive.signatureFile).write(to: URL(fileURLWithPath: sig))
        return (bin, sig)
    }

    /// The sample server's configuration (Tests/ENTestSupport/Fixtures/risk), with `changes` applied.
    func configuration(_ changes: [String: Any] = [:]) throws -> String {
        let data = try Fixtures.data("risk/exposure-configuration-current.json")
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object.merge(changes) { $1 }
        let path = directory.path("config-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        return path
    }

    func detect(
        _ files: [String], config: String, sightings: String? = nil, extra: [String] = []
    ) throws -> EntoolResult {
        try runEntool(
            [
                "detect", "--config", config, "--sightings", sightings ?? self.sightings, "--public-key", publicKey,
                "--now", Self.now, "--json",
            ] + extra + files)
    }
}

@Suite("entool detect")
struct DetectCommandTests {
    // The scan rule (ENSightingScan): the first scan stands for 120 s, each later one for the 240 s since the
    // one before: 120 + 5 x 240 = 1320 s, 22 minutes.
    static let scanSeconds = [120, 240, 240, 240, 240, 240]

    @Test("version 2: a 20-minute encounter gives one window of six scans and its day summary, as score v2 does")
    func versionTwo() throws {
        let encounter = try Encounter()
        defer { encounter.directory.cleanUp() }
        // Time at 60 dB is in the near bucket, (50, 70] dB; weighting it 50 % makes the weight visible.
        let config = try encounter.configuration(["nearDurationWeight": 50])
        let result = try encounter.detect([try encounter.writeZip("export-1.zip")], config: config)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["exposureInfo"] == nil)

        let windows = try #require(object["exposureWindows"] as? [[String: Any]])
        try #require(windows.count == 1)
        let window = windows[0]
        #expect(window["date"] as? String == "2020-04-02")
        #expect(window["diagnosisReportType"] as? Int == 1)  // confirmedTest
        #expect(window["infectiousness"] as? Int == 1)  // standard: the configuration maps day 0 to 1
        #expect(window["calibrationConfidence"] as? Int == 3)  // high
        #expect(window["variantOfConcernType"] as? Int == 0)  // unknown
        let scans = try #require(window["scanInstances"] as? [[String: Any]])
        #expect(scans.map { $0["secondsSinceLastScan"] as? Int } == Self.scanSeconds)
        #expect(scans.allSatisfy { $0["minimumAttenuation"] as? Int == 60 && $0["typicalAttenuation"] as? Int == 60 })

        // 1320 s x 50 % (near) x 100 % (confirmed test) x 100 % (standard infectiousness) = 660 s.
        let summary = try #require(object["summary"] as? [String: Any])
        let days = try #require(summary["daySummaries"] as? [[String: Any]])
        try #require(days.count == 1)
        #expect(days[0]["date"] as? String == "2020-04-02")
        let day = try #require(days[0]["daySummary"] as? [String: Any])
        #expect(day["maximumScore"] as? Double == 660)
        #expect(day["scoreSum"] as? Double == 660)
        #expect(day["weightedDurationSum"] as? Double == 660)
        #expect((days[0]["confirmedTestSummary"] as? [String: Any])?["scoreSum"] as? Double == 660)
        #expect(days[0]["selfReportedSummary"] is NSNull)
        // Version 2 leaves Apple's version 1 properties empty, as iOS does.
        #expect(summary["matchedKeyCount"] as? Int == 0)
        #expect((summary["attenuationDurations"] as? [Any])?.isEmpty == true)

        // The windows are score v2's input shape: scoring them gives the same day summaries.
        let windowsFile = encounter.directory.url.appendingPathComponent("windows.json")
        try JSONSerialization.data(withJSONObject: ["windows": windows]).write(to: windowsFile)
        let scored = try runEntool([
            "score", "v2", "--config", config, "--input", windowsFile.path, "--now", Encounter.now, "--json",
        ])
        #expect(scored.status == 0, "\(scored.stderr)")
        let scoredDays = try #require((try scored.json() as? [String: Any])?["daySummaries"] as? [Any])
        #expect(NSArray(array: scoredDays).isEqual(to: days))
    }

    @Test("version 1: the same encounter gives one exposure info and the summary by hand")
    func versionOne() throws {
        let encounter = try Encounter()
        defer { encounter.directory.cleanUp() }
        let result = try encounter.detect(
            [try encounter.writeZip("export-1.zip")], config: try encounter.configuration(),
            extra: ["--api-version", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["exposureWindows"] == nil)
        let infos = try #require(object["exposureInfo"] as? [[String: Any]])
        try #require(infos.count == 1)
        let info = infos[0]
        // Level values 1...8 by bucket: 60 dB is bucket 2 (51 < a <= 63) -> 3; 0 days is bucket 7 -> 8;
        // 22 minutes is bucket 5 (<= 25) -> 6; transmission risk level 4 -> 5. 3 x 8 x 6 x 5 = 720, capped at 255.
        // Thresholds [50, 70]: the 1320 s at 60 dB are in the middle range.
        #expect(info["date"] as? String == "2020-04-02")
        #expect(info["duration"] as? Double == 1320)
        #expect(info["attenuationValue"] as? Int == 3)
        #expect(info["attenuationDurations"] as? [Double] == [0, 1320, 0])
        #expect(info["totalRiskScoreFullRange"] as? Double == 720)
        #expect(info["totalRiskScore"] as? Int == 255)
        #expect(info["transmissionRiskLevel"] as? Int == 4)
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["matchedKeyCount"] as? Int == 1)
        #expect(summary["daysSinceLastExposure"] as? Int == 0)
        #expect(summary["maximumRiskScore"] as? Int == 255)
        #expect(summary["maximumRiskScoreFullRange"] as? Double == 720)
        #expect(summary["riskScoreSumFullRange"] as? Double == 720)
        #expect(summary["attenuationDurations"] as? [Double] == [0, 1320, 0])
        #expect((summary["daySummaries"] as? [Any])?.isEmpty == true)
    }

    @Test("the bare .bin/.sig layout gives the zip's result; --key-id and --key-version must match the file")
    func barePair() throws {
        let encounter = try Encounter()
        defer { encounter.directory.cleanUp() }
        let config = try encounter.configuration()
        let zip = try encounter.detect([try encounter.writeZip("export-1.zip")], config: config)
        let pair = try encounter.writePair("export-2")
        let bare = try encounter.detect(
            [pair.sig, pair.bin], config: config, extra: ["--key-id", "310", "--key-version", "v1"])
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(((try bare.json() as? [String: Any])?["exposureWindows"] as? [Any])?.count == 1)
        #expect(bare.output == zip.output)

        let otherID = try encounter.detect([pair.bin, pair.sig], config: config, extra: ["--key-id", "999"])
        #expect(otherID.status == 1, "\(otherID.stderr)")
        #expect(otherID.stdout.isEmpty)
    }

    @Test("a file signed by another key exits 1 with no result, naming the file and export.sig")
    func untrustedSigner() throws {
        let encounter = try Encounter()
        defer { encounter.directory.cleanUp() }
        let good = try encounter.writeZip("good.zip")
        let forged = try encounter.writeZip("forged.zip", signer: try P256SigningKey())
        let result = try encounter.detect([good, forged], config: try encounter.configuration())
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("forged.zip: export.sig"), "\(result.stderr)")
    }

    @Test("a .bin without its .sig, or a .sig without its .bin, exits 2 naming it")
    func unpairedFile() throws {
        let encounter = try Encounter()
        defer { encounter.directory.cleanUp() }
        let pair = try encounter.writePair("export-1")
        let config = try encounter.configuration()
        for (file, name) in [(pair.bin, "export-1.bin"), (pair.sig, "export-1.sig")] {
            let result = try encounter.detect([file], config: config)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("badParameter") && result.stderr.contains(name), "\(result.stderr)")
        }
    }

    @Test("malformed sightings exit 2 naming the field; so do a bad --now and --api-version")
    func badInput() throws {
        let encounter = try Encounter()
        defer { encounter.directory.cleanUp() }
        let zip = try encounter.writeZip("export-1.zip")
        let config = try encounter.configuration()
        let good =
            #"{"rpi": "00112233445566778899aabbccddeeff", "aem": "01020304", "timestamp": "2020-04-02T10:00:00Z", "rssi": -60}"#
        let cases: [(String, String)] = [
            (
                #"{"sightings": [{"rpi": "0011", "aem": "01020304", "timestamp": "2020-04-02T10:00:00Z", "rssi": -60}]}"#,
                "sightings[0].rpi"
            ),
            (
                #"{"sightings": [{"rpi": "zz112233445566778899aabbccddeeff", "aem": "01020304", "timestamp": "2020-04-02T10:00:00Z", "rssi": -60}]}"#,
                "sightings[0].rpi"
            ),
            (
                "{\"sightings\": [\(good), "
                    + #"{"rpi": "00112233445566778899aabbccddeeff", "aem": "0102030405", "timestamp": "2020-04-02T10:00:00Z", "rssi": -60}]}"#,
                "sightings[1].aem"
            ),
            (
                #"{"sightings": [{"rpi": "00112233445566778899aabbccddeeff", "aem": "01020304", "timestamp": "yesterday", "rssi": -60}]}"#,
                "sightings[0].timestamp"
            ),
            (
                #"{"sightings": [{"rpi": "00112233445566778899aabbccddeeff", "aem": "01020304", "timestamp": "2020-04-02T10:00:00Z", "rssi": 128}]}"#,
                "sightings[0].rssi"
            ),
            (
                #"{"sightings": [{"rpi": "00112233445566778899aabbccddeeff", "aem": "01020304", "timestamp": "2020-04-02T10:00:00Z"}]}"#,
                "sightings[0].rssi"
            ),
            (
                #"{"sightings": [{"rpi": 7, "aem": "01020304", "timestamp": "2020-04-02T10:00:00Z", "rssi": -60}]}"#,
                "sightings[0].rpi"
            ),
            (#"{"observations": []}"#, "sightings"),
            ("{", "bad-sightings.json"),
        ]
        for (text, expected) in cases {
            let file = encounter.directory.path("bad-sightings.json")
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let result = try encounter.detect([zip], config: config, sightings: file)
            #expect(result.status == 2, "\(expected): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains(expected), "\(expected): \(result.stderr)")
        }
        let missing = try encounter.detect([zip], config: config, sightings: encounter.directory.path("none.json"))
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("none.json"))
        for options in [["--now", "tomorrow"], ["--api-version", "3"]] {
            let result = try runEntool(
                [
                    "detect", "--config", config, "--sightings", encounter.sightings, "--public-key",
                    encounter.publicKey,
                ] + options + [zip])
            #expect(result.status == 2, "\(options): \(result.stderr)")
            #expect(result.stderr.contains(options[0]), "\(options): \(result.stderr)")
        }
    }
}
