import ENCore
import Foundation
import Testing

/// The Exposure Notification crypto spec v1.2 test vectors (Google's published `TestVectors`), loaded from
/// `Fixtures/test-vectors-v1.2.json`.
struct TestVectors: Decodable {
    struct Advertisement: Decodable {
        var interval: UInt32
        var rpi: String
        var aem: String
    }

    var keyGenerationSeconds: Int
    var rollingStartIntervalNumber: UInt32
    var temporaryExposureKey: String
    var rpik: String
    var aemk: String
    var metadata: String
    var advertisements: [Advertisement]

    static func load() throws -> TestVectors {
        let url = try #require(Bundle.module.url(forResource: "test-vectors-v1.2", withExtension: "json", subdirectory: "Fixtures"))
        return try JSONDecoder().decode(TestVectors.self, from: Data(contentsOf: url))
    }

    var key: ENTemporaryExposureKey {
        ENTemporaryExposureKey(
            keyData: Data(hexString: temporaryExposureKey)!,
            rollingStartNumber: ENIntervalNumber(rollingStartIntervalNumber))
    }
}

/// Loads a fixture file's text.
func fixtureText(_ name: String, _ ext: String) throws -> String {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures"))
    return try String(contentsOf: url, encoding: .utf8)
}
