import Foundation

/// How much work the randomized tests do: all of it by default, a smaller share when the environment variable
/// `EN_TEST_REDUCED` is set (to anything but `0`).
///
/// CI sets it for the ThreadSanitizer and AddressSanitizer runs of the suite, which exist to find races and
/// memory errors on every path, not to repeat the same comparison on more random inputs at 5-15 times the cost:
/// the full counts run in the ordinary run of the suite just before.
public enum TestScale {
    /// Whether this run does the reduced share.
    public static let isReduced: Bool = {
        guard let value = ProcessInfo.processInfo.environment["EN_TEST_REDUCED"] else { return false }
        return !value.isEmpty && value != "0"
    }()

    /// `full` in an ordinary run, `reduced` in a reduced one.
    public static func pick<T>(_ full: T, reduced: T) -> T { isReduced ? reduced : full }
}
