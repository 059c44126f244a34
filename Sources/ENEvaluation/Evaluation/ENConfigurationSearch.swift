public import ENCore

/// A search over V2 attenuation thresholds, bucket weights and the day threshold for the configuration with the
/// highest true-positive rate whose false-positive rate stays within a bound.
///
/// Every candidate is scored by the package's own V2 scoring (through ``ENEvaluator``) with a `daySummary`
/// rule on `scoreSum`; the day threshold of each candidate is chosen from its own ``ENThresholdSweep``.
public enum ENConfigurationSearch {
    /// The grid searched.
    public struct Grid: Hashable, Sendable {
        /// Candidate attenuation thresholds (dB); every increasing triple is tried.
        public var thresholds: [Int]
        /// Candidate immediate-bucket weights (percent).
        public var immediateWeights: [Double]
        /// Candidate near-bucket weights (percent).
        public var nearWeights: [Double]
        /// Candidate medium-bucket weights (percent); the other bucket always weighs 0.
        public var mediumWeights: [Double]

        /// Creates a grid; the defaults span the published configurations (50 ... 80 dB, LFPH's weights).
        public init(
            thresholds: [Int] = [50, 53, 55, 58, 60, 63, 65, 67, 70, 73, 75, 80],
            immediateWeights: [Double] = [100, 150, 175, 200], nearWeights: [Double] = [50, 100],
            mediumWeights: [Double] = [0, 25, 40]
        ) {
            self.thresholds = thresholds
            self.immediateWeights = immediateWeights
            self.nearWeights = nearWeights
            self.mediumWeights = mediumWeights
        }

        /// The number of candidates.
        public var count: Int {
            let n = Set(thresholds).count
            return n * (n - 1) * (n - 2) / 6 * immediateWeights.count * nearWeights.count * mediumWeights.count
        }
    }

    /// The best configuration found.
    public struct Optimum: Hashable, Sendable {
        /// The configuration: `base` with the thresholds, weights and day threshold found.
        public var configuration: ENEvaluationConfiguration
        /// Its true-positive rate.
        public var truePositiveRate: Double
        /// Its false-positive rate.
        public var falsePositiveRate: Double
    }

    /// Searches the grid; nil when no candidate notifies anyone within the bound, or when the data have no
    /// contacts or no non-contacts (a rate is undefined).
    ///
    /// - Parameters:
    ///   - encounters: the labelled encounters.
    ///   - base: supplies the report-type and infectiousness weights and maps; its rule is replaced.
    ///   - request: the contact rule, default key metadata and "now".
    ///   - maximumFalsePositiveRate: the bound on the false-positive rate, 0...1.
    ///   - grid: the candidates.
    public static func optimize(
        _ encounters: [ENLabelledEncounter], base: ENEvaluationConfiguration, request: ENEvaluationRequest,
        maximumFalsePositiveRate: Double, grid: Grid = Grid()
    ) throws(ENError) -> Optimum? {
        let thresholds = Array(Set(grid.thresholds)).sorted()
        var best: Optimum?
        for i in thresholds.indices {
            for j in thresholds.indices where j > i {
                for k in thresholds.indices where k > j {
                    for immediate in grid.immediateWeights {
                        for near in grid.nearWeights {
                            for medium in grid.mediumWeights {
                                var candidate = base
                                candidate.name = "optimum"
                                candidate.framework.attenuationDurationThresholds = [
                                    thresholds[i], thresholds[j], thresholds[k],
                                ]
                                candidate.framework.immediateDurationWeight = immediate
                                candidate.framework.nearDurationWeight = near
                                candidate.framework.mediumDurationWeight = medium
                                candidate.framework.otherDurationWeight = 0
                                candidate.rule = .daySummary(field: .scoreSum, notifyIfAtLeastSeconds: 0)
                                let result = try ENEvaluator.evaluate(
                                    encounters, configuration: candidate, request: request)
                                let sweep = ENThresholdSweep(result.decisions)
                                guard let point = sweep.best(maximumFalsePositiveRate: maximumFalsePositiveRate),
                                    point.threshold.isFinite, point.threshold > 0
                                else { continue }
                                if best == nil || point.truePositiveRate > best!.truePositiveRate
                                    || (point.truePositiveRate == best!.truePositiveRate
                                        && point.falsePositiveRate < best!.falsePositiveRate)
                                {
                                    candidate.rule = .daySummary(
                                        field: .scoreSum, notifyIfAtLeastSeconds: point.threshold)
                                    best = Optimum(
                                        configuration: candidate, truePositiveRate: point.truePositiveRate,
                                        falsePositiveRate: point.falsePositiveRate)
                                }
                            }
                        }
                    }
                }
            }
        }
        return best
    }
}
