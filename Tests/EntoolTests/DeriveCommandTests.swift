import ENTestSupport
import Foundation
import Testing

@Suite("entool derive")
struct DeriveCommandTests {
    struct Vectors: Decodable {
        struct Advertisement: Decodable {
            var interval: UInt32
            var rpi: String
            var aem: String
        }
        var temporaryExposureKey: String
        var rpik: String
        var aemk: String
        var metadata: String
        var rollingStartIntervalNumber: UInt32
        var advertisements: [Advertisement]
    }

    struct Output: Decodable {
        struct Identifier: Decodable {
            var interval: UInt32
            var rpi: String
            var aem: String?
        }
        var rpik: String
        var aemk: String
        var identifiers: [Identifier]
    }

    let vectors: Vectors

    init() throws {
        vectors = try JSONDecoder().decode(
            Vectors.self, from: Data(contentsOf: Fixtures.url("crypto/test-vectors-v1.2.json")))
    }

    @Test("--json reproduces the whole official vector: keys, 144 RPIs and AEMs")
    func officialVector() throws {
        let result = try runEntool([
            "derive", "--tek", vectors.temporaryExposureKey, "--interval", "\(vectors.rollingStartIntervalNumber)",
            "--metadata", vectors.metadata, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try JSONDecoder().decode(Output.self, from: result.stdout)
        #expect(output.rpik == vectors.rpik)
        #expect(output.aemk == vectors.aemk)
        #expect(output.identifiers.map(\.interval) == vectors.advertisements.map(\.interval))
        #expect(output.identifiers.map(\.rpi) == vectors.advertisements.map(\.rpi))
        #expect(output.identifiers.map(\.aem) == vectors.advertisements.map(\.aem))
    }

    @Test("without --metadata there is no aem field; --count limits the list; upper-case hex is accepted")
    func countAndNoMetadata() throws {
        let result = try runEntool([
            "derive", "--tek", vectors.temporaryExposureKey.uppercased(), "--interval", "2643046", "--count", "2",
            "--json",
        ])
        #expect(result.status == 0)
        let object = try #require(try result.json() as? [String: Any])
        let identifiers = try #require(object["identifiers"] as? [[String: Any]])
        #expect(identifiers.count == 2)
        #expect(identifiers[0]["aem"] == nil)
        #expect(identifiers[0]["rpi"] as? String == "a8454b9c947d1625ee3fba2607c23aff")
        #expect(identifiers[1]["rpi"] as? String == "416ffc7a32fcfda9a316d01790e31945")
    }

    @Test("the human-readable form shows the keys and a dated table")
    func text() throws {
        let result = try runEntool([
            "derive", "--tek", vectors.temporaryExposureKey, "--interval", "2642976", "--count", "1",
        ])
        #expect(result.status == 0)
        #expect(result.output.contains("RPIK  185ad91db69ec7dd048960f1f3ba6175"))
        #expect(result.output.contains("2020-04-02 00:00"))
        #expect(result.output.contains("8be6cd371c5c891604bfbe49df845096"))
    }

    @Test(
        "bad input exits 2 with a reason on standard error",
        arguments: [
            (["--tek", "75c734c6dd1a782de7a965da5eb931", "--interval", "1"], "16 bytes"),
            (["--tek", "75c734c6dd1a782de7a965da5eb9312500", "--interval", "1"], "16 bytes"),
            (["--tek", "zz", "--interval", "1"], "hexadecimal"),
            (["--tek", "75c734c6dd1a782de7a965da5eb93125", "--interval", "1", "--count", "0"], "--count"),
            (["--tek", "75c734c6dd1a782de7a965da5eb93125", "--interval", "1", "--count", "145"], "--count"),
            (["--tek", "75c734c6dd1a782de7a965da5eb93125", "--interval", "1", "--metadata", "4008"], "--metadata"),
            (["--tek", "75c734c6dd1a782de7a965da5eb93125", "--interval", "-1"], "interval"),
            (["--interval", "1"], "--tek"),
        ])
    func badInput(arguments: [String], mention: String) throws {
        let result = try runEntool(["derive"] + arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(mention), "\(result.stderr)")
    }
}
