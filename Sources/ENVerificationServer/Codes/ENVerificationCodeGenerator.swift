/// Draws codes as Google's `gen_code.go` does, from the system's cryptographically secure generator: a short
/// code of `length` decimal digits (one uniform draw below 10^length, zero padded), a long code of `length`
/// characters each uniform over `a`–`z` and `0`–`9`.
public enum ENVerificationCodeGenerator {
    /// The long codes' alphabet (Google's `charset`).
    public static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")

    /// The shortest code Google stores (`MinCodeLength`).
    public static let minimumLength = 6
    /// The longest short code: 10^18 still fits a 64-bit draw.
    public static let maximumShortLength = 18

    /// A short code of `length` digits (6…18).
    public static func shortCode(length: Int) -> String {
        precondition((minimumLength...maximumShortLength).contains(length), "short code length \(length)")
        var generator = SystemRandomNumberGenerator()
        var limit: UInt64 = 1
        for _ in 0..<length { limit *= 10 }
        let text = String(UInt64.random(in: 0..<limit, using: &generator))
        return String(repeating: "0", count: length - text.count) + text
    }

    /// A long code of `length` characters (at least 6).
    public static func longCode(length: Int) -> String {
        precondition(length >= minimumLength, "long code length \(length)")
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
