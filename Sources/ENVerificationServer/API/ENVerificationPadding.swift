public import Foundation

/// The `padding` of Google's requests and responses (`api.Padding`): meaningless bytes that hide the size of a
/// body. A response's padding is never omitted: when none is set it is 1,024 to 2,047 random bytes, base64
/// (standard alphabet, padded), as Google's `Padding.MarshalJSON` draws them.
public enum ENVerificationPadding {
    /// The JSON value of a response's `padding`: `bytes` in base64, or fresh random bytes when `nil`.
    static func value(_ bytes: Data?) -> GoJSONValue {
        .string((bytes ?? random()).base64EncodedString())
    }

    /// 1,024 to 2,047 random bytes, from the system's generator.
    public static func random() -> Data {
        var generator = SystemRandomNumberGenerator()
        let count = Int.random(in: 1024..<2048, using: &generator)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
