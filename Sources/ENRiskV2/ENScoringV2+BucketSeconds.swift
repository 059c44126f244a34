package import ENCore

extension ENScoringV2 {
    /// A window's whole seconds in each attenuation bucket (negative scan seconds count as 0).
    ///
    /// Buckets follow `ENExposureConfiguration`'s rule on both platforms: a scan's typical attenuation is immediate
    /// `<=` the first threshold, else near `<=` the second, else medium `<=` the third, else other. Tested in that
    /// order, the rule is the same as cumulative upper bounds (``upperBounds(_:)``): the seconds at or below each
    /// bound, differenced (``init(secondsAtOrBelow:totalSeconds:)``). Every version 2 score buckets this way.
    package struct BucketSeconds: Hashable, Sendable {
        /// Seconds at or below the first threshold.
        package var immediate: Int
        /// Seconds above the first threshold, at or below the second.
        package var near: Int
        /// Seconds above the second threshold, at or below the third.
        package var medium: Int
        /// Seconds above the third threshold.
        package var other: Int

        /// Creates bucket seconds.
        package init(immediate: Int, near: Int, medium: Int, other: Int) {
            self.immediate = immediate
            self.near = near
            self.medium = medium
            self.other = other
        }

        /// The bucket seconds from the seconds at or below each of ``upperBounds(_:)`` and the window's total.
        package init(secondsAtOrBelow bounds: (Int, Int, Int), totalSeconds: Int) {
            self.init(
                immediate: bounds.0, near: bounds.1 - bounds.0, medium: bounds.2 - bounds.1,
                other: totalSeconds - bounds.2)
        }

        /// The highest attenuation of each of the first three buckets, from `ENExposureConfiguration`'s effective
        /// attenuation thresholds: the running maximum (a threshold below an earlier one adds nothing to its
        /// bucket, as testing the thresholds in order gives).
        package static func upperBounds(
            _ thresholds: (ENAttenuation, ENAttenuation, ENAttenuation)
        ) -> (ENAttenuation, ENAttenuation, ENAttenuation) {
            let second = max(thresholds.0, thresholds.1)
            return (thresholds.0, second, max(second, thresholds.2))
        }

        /// The bucket seconds of one window's scans, summed in one pass (without an ``AttenuationProfile``).
        package init(_ scans: [ENScanInstance], thresholds: (ENAttenuation, ENAttenuation, ENAttenuation)) {
            let bounds = Self.upperBounds(thresholds)
            var atOrBelow = (0, 0, 0)
            var total = 0
            for scan in scans where scan.secondsSinceLastScan > 0 {
                let seconds = scan.secondsSinceLastScan
                let attenuation = scan.typicalAttenuation
                if attenuation <= bounds.0 { atOrBelow.0 += seconds }
                if attenuation <= bounds.1 { atOrBelow.1 += seconds }
                if attenuation <= bounds.2 { atOrBelow.2 += seconds }
                total += seconds
            }
            self.init(secondsAtOrBelow: atOrBelow, totalSeconds: total)
        }
    }
}
