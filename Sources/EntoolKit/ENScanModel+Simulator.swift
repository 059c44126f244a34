import ENEvaluation
import ENSimulator
import Foundation

extension ENScanModel {
    /// The simulator's scan model (`ENScanTiming`, Google's 300 s ± 90 s, 4 s by default) drawing from a generator
    /// seeded with `seed` and the encounter's id, so a run is reproducible and encounters are independent.
    static func simulator(seed: UInt64, timing: ENScanTiming = ENScanTiming()) -> ENScanModel {
        ENScanModel { span, encounter in
            var random = ENSeededRandom(seed: seed ^ fnv1a(encounter))
            // The span plus one scan length, so a scan starting at the last sample can hear it.
            return timing.scans(from: span.start, length: span.duration + timing.duration, using: &random).map {
                DateInterval(start: $0, duration: timing.duration)
            }
        }
    }

    /// FNV-1a, 64 bits: a hash of the id that does not change between runs (Swift's `Hasher` does).
    private static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
