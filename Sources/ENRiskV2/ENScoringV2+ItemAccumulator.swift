extension ENScoringV2 {
    /// Running sums of window scores for one summary item: the highest score, the score sum and the
    /// weighted-duration sum, in the order the windows are added.
    package struct ItemAccumulator: Sendable {
        /// The highest score added.
        package var maximumScore = 0.0
        /// The sum of the scores added.
        package var scoreSum = 0.0
        /// The sum of the weighted durations added.
        package var weightedDurationSum = 0.0

        /// Empty sums.
        package init() {}

        /// Adds a window's score.
        package mutating func add(_ score: WindowScore) {
            maximumScore = max(maximumScore, score.score)
            scoreSum += score.score
            weightedDurationSum += score.weightedDuration
        }

        /// The item: every value rounded up to a whole minute when `roundsUp` (Apple), unrounded otherwise
        /// (Android).
        package func item(_ roundsUp: Bool) -> ENExposureSummaryItem {
            guard roundsUp else {
                return ENExposureSummaryItem(
                    maximumScore: maximumScore, scoreSum: scoreSum, weightedDurationSum: weightedDurationSum)
            }
            return ENExposureSummaryItem(
                maximumScore: ENExposureSummaryItem.roundedUpToMinute(maximumScore),
                scoreSum: ENExposureSummaryItem.roundedUpToMinute(scoreSum),
                weightedDurationSum: ENExposureSummaryItem.roundedUpToMinute(weightedDurationSum))
        }
    }
}
