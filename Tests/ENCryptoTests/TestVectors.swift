import ENCore
import ENTestSupport
import Foundation
import Testing

/// The Exposure Notification crypto spec v1.2 test vectors (Google's published `TestVectors`), loaded from
/// `crypto/test-vectors-v1.2.json` (ENTestSupport).
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
        try JSONDecoder().decode(TestVectors.self, from: Fixtures.data("crypto/test-vectors-v1.2.json"))
    }

    var key: ENTemporaryExposureKey {
        ENTemporaryExposureKey(
            keyData: Data(hexString: temporaryExposureKey)!,
            rollingStartNumber: ENIntervalNumber(rollingStartIntervalNumber))
    }
}
