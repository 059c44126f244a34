internal import Foundation

/// A seeded random number generator (SplitMix64): the same seed gives the same numbers on every platform, so a
/// simulation repeats exactly.
///
/// Not for cryptography: the simulated devices' keys come from ENCrypto's secure generator.
public struct ENSeededRandom: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// Creates a generator from `seed`.
    public init(seed: UInt64) { state = seed }

    /// Creates a generator for one part of a run: the same `seed` and `stream` numbers always give the same
    /// sequence, and different streams give unrelated ones.
    public init(seed: UInt64, stream: [UInt64]) {
        var generator = ENSeededRandom(seed: seed)
        for value in stream {
            generator.state ^= value &* 0xD1B5_4A32_D192_ED03
            _ = generator.next()
        }
        self = generator
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A normally distributed number (Box-Muller) with the given mean and standard deviation.
    public mutating func nextGaussian(mean: Double = 0, standardDeviation: Double = 1) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return mean + standardDeviation * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
