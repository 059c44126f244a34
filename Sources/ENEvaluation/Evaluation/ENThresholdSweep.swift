/// The ROC curve of a rule's own threshold varied over every distinct value: notify when `value >= τ`.
public struct ENThresholdSweep: Hashable, Sendable {
    /// One point of the curve.
    public struct Point: Hashable, Sendable {
        /// The threshold τ (infinity for the first point).
        public var threshold: Double
        /// FP / non-contacts.
        public var falsePositiveRate: Double
        /// TP / contacts.
        public var truePositiveRate: Double

        /// Creates a point.
        public init(threshold: Double, falsePositiveRate: Double, truePositiveRate: Double) {
            self.threshold = threshold
            self.falsePositiveRate = falsePositiveRate
            self.truePositiveRate = truePositiveRate
        }
    }

    /// The points from τ = ∞ (0, 0) down to the lowest value; empty when there are no contacts or no
    /// non-contacts (a rate is undefined).
    public var points: [Point]

    /// Sweeps the decisions' values.
    public init(_ decisions: [ENEncounterDecision]) {
        let contacts = decisions.count { $0.contact }
        let others = decisions.count - contacts
        guard contacts > 0, others > 0 else {
            points = []
            return
        }
        // The values and labels alone: sorting them (stably, by the same comparison) orders them as sorting the
        // decisions would, with less to move.
        let sorted = decisions.map { (value: $0.value, contact: $0.contact) }.sorted { $0.value > $1.value }
        var points = [Point(threshold: .infinity, falsePositiveRate: 0, truePositiveRate: 0)]
        var truePositives = 0
        var falsePositives = 0
        var index = 0
        while index < sorted.count {
            let threshold = sorted[index].value
            while index < sorted.count, sorted[index].value == threshold {
                if sorted[index].contact { truePositives += 1 } else { falsePositives += 1 }
                index += 1
            }
            points.append(
                Point(
                    threshold: threshold, falsePositiveRate: Double(falsePositives) / Double(others),
                    truePositiveRate: Double(truePositives) / Double(contacts)))
        }
        self.points = points
    }

    /// The area under the points (trapezoids, closed at (1, 1)); 0.5 is chance, nil without points.
    public var areaUnderCurve: Double? {
        guard !points.isEmpty else { return nil }
        var area = 0.0
        var closed = points
        if let last = closed.last, last.falsePositiveRate < 1 || last.truePositiveRate < 1 {
            closed.append(Point(threshold: -.infinity, falsePositiveRate: 1, truePositiveRate: 1))
        }
        for (a, b) in zip(closed, closed.dropFirst()) {
            area += (b.falsePositiveRate - a.falsePositiveRate) * (a.truePositiveRate + b.truePositiveRate) / 2
        }
        return area
    }

    /// The point with the highest TPR whose FPR is at most `maximumFalsePositiveRate` (the highest threshold
    /// among equals), or nil.
    public func best(maximumFalsePositiveRate: Double) -> Point? {
        var best: Point?
        for point in points where point.falsePositiveRate <= maximumFalsePositiveRate {
            if best == nil || point.truePositiveRate > best!.truePositiveRate { best = point }
        }
        return best
    }
}
