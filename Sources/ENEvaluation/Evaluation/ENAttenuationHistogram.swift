public import ENCore
public import Foundation

/// Time per attenuation bin, as measurement studies published it: one exposure of one key on one day.
///
/// A bin `lo`-`hi` holds the whole-dB attenuations `lo ... hi-1`. Where a bin straddles a scoring threshold the
/// data do not say how its time divides, so evaluation places it three ways (``Placement``).
public struct ENAttenuationHistogram: Hashable, Sendable {
    /// One bin.
    public struct Bin: Hashable, Sendable {
        /// The lowest attenuation in the bin, 0...255.
        public var lo: Int
        /// One more than the highest attenuation in the bin, `lo + 1 ... 256`.
        public var hi: Int
        /// The time in the bin, in seconds.
        public var seconds: TimeInterval

        /// Creates a bin.
        public init(lo: Int, hi: Int, seconds: TimeInterval) {
            self.lo = lo
            self.hi = hi
            self.seconds = seconds
        }
    }

    /// Where a bin's time is put among its attenuations.
    public enum Placement: String, Hashable, Sendable, CaseIterable {
        /// All of a bin's time at `lo`.
        case lowest
        /// All of it at `hi - 1`.
        case highest
        /// Divided equally among `lo ... hi-1` (the reported decision).
        case even
    }

    /// The bins, in input order; they never share an attenuation.
    public var bins: [Bin]
    /// The attenuations the measurement could see, when published; time outside is unknown, not zero.
    public var coverage: ClosedRange<Int>?

    /// Creates a histogram; call ``validate()`` for input that was not checked.
    public init(bins: [Bin], coverage: ClosedRange<Int>? = nil) {
        self.bins = bins
        self.coverage = coverage
    }

    /// The histogram's total time, in seconds: the exposure's duration.
    public var totalSeconds: TimeInterval { bins.reduce(0) { $0 + $1.seconds } }

    /// Fails naming the first bad bin: `hi <= lo`, outside 0...256, a negative or non-finite time, or two bins
    /// sharing an attenuation.
    public func validate() throws(ENError) {
        var used = [Bool](repeating: false, count: 256)
        for (index, bin) in bins.enumerated() {
            let context = ENError.Context(section: "bins", index: index)
            guard bin.lo >= 0, bin.lo <= 255, bin.hi >= 1, bin.hi <= 256, bin.hi > bin.lo else {
                throw ENError.badFormat("needs 0 <= lo < hi <= 256, got \(bin.lo)-\(bin.hi)", context: context)
            }
            guard bin.seconds.isFinite, bin.seconds >= 0 else {
                throw ENError.badFormat("value must be at least 0", context: context)
            }
            for attenuation in bin.lo..<bin.hi {
                guard !used[attenuation] else {
                    throw ENError.badFormat("overlaps another bin at \(attenuation) dB", context: context)
                }
                used[attenuation] = true
            }
        }
    }

    /// The time per attenuation under a placement, as (attenuation, seconds), bins with no time left out.
    public func segments(_ placement: Placement) -> [(attenuation: ENAttenuation, seconds: TimeInterval)] {
        var result: [(attenuation: ENAttenuation, seconds: TimeInterval)] = []
        for bin in bins where bin.seconds > 0 {
            switch placement {
            case .lowest: result.append((ENAttenuation(bin.lo), bin.seconds))
            case .highest: result.append((ENAttenuation(bin.hi - 1), bin.seconds))
            case .even:
                let share = bin.seconds / Double(bin.hi - bin.lo)
                for attenuation in bin.lo..<bin.hi { result.append((ENAttenuation(attenuation), share)) }
            }
        }
        return result
    }

    /// Whether every placement puts every bin's time at one attenuation (all bins one dB wide).
    public var isDeterminate: Bool { bins.allSatisfy { $0.hi - $0.lo == 1 || $0.seconds == 0 } }
}
