import Foundation

/// A reproducible random number generator (SplitMix64) for randomized tests.
///
/// Create one per test with ``forTest(defaultSeed:test:fileID:)``: it prints the seed it uses, and the
/// `EN_TEST_SEED` environment variable replaces the seed, so a failure can be replayed with
/// `EN_TEST_SEED=<seed> swift test --filter <test>`. Its `description` names the seed, for failure messages.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable, CustomStringConvertible {
    /// The environment variable that, when set to a decimal or `0x` hexadecimal number, replaces every test's seed.
    public static let environmentVariable = "EN_TEST_SEED"

    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// A generator that starts from exactly `seed` (no environment override, nothing printed).
    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// The generator for one test: the seed is `EN_TEST_SEED` if set, else `defaultSeed`, else a fresh random
    /// seed. The seed is printed with the test's name and how to replay it.
    public static func forTest(
        defaultSeed: UInt64? = nil, test: String = #function, fileID: String = #fileID
    ) -> SeededRandomNumberGenerator {
        let seed = environmentSeed ?? defaultSeed ?? UInt64.random(in: .min ... .max)
        print("[\(fileID) \(test)] random seed \(seed); replay with \(environmentVariable)=\(seed)")
        return SeededRandomNumberGenerator(seed: seed)
    }

    /// The seed from `EN_TEST_SEED`, if it is set to a number.
    public static var environmentSeed: UInt64? {
        guard let text = ProcessInfo.processInfo.environment[environmentVariable] else { return nil }
        if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed and how to replay it, for failure messages.
    public var description: String { "seed \(seed) (replay with \(Self.environmentVariable)=\(seed))" }
}
