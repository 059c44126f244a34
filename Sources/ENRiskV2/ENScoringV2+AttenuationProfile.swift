package import ENCore

extension ENScoringV2 {
    /// A window's scan seconds accumulated by typical attenuation: the seconds at or below each attenuation, so
    /// that the seconds in every bucket, under any thresholds, take three look-ups.
    ///
    /// The one way version 2 scoring buckets a window's seconds: ``ENScoringV2/score(of:configuration:now:)`` and
    /// ``ENScoringV2/weightedDuration(of:configuration:)`` build one per window, ``PreparedWindows`` one per window
    /// read under many configurations. Buckets follow `ENExposureConfiguration`'s rule: inclusive upper
    /// thresholds, tested in order, on both platforms.
    ///
    /// The accumulated seconds live in a storage array that many profiles can share (no reference counting
    /// when a profile is read); a profile is read with the storage it was appended to.
    package struct AttenuationProfile: Hashable, Sendable {
        /// Where the profile's entries start in its storage.
        private var start: Int
        /// The number of entries: one per attenuation from ``lowest`` to the highest with time.
        private var count: Int
        /// The lowest typical attenuation of a scan with time (0 when there is none).
        private var lowest: Int
        /// The window's total seconds.
        package private(set) var totalSeconds: Int

        /// Accumulates scans into `storage`: entry `i` is the seconds of scans at typical attenuation
        /// `lowest + i` or below. Negative seconds count as 0. Traps, as summing the seconds does, when the
        /// total does not fit in `Int`.
        package init(_ scans: [ENScanInstance], appendingTo storage: inout [Int]) {
            var lowest = Int.max
            var highest = Int.min
            for scan in scans where scan.secondsSinceLastScan > 0 {
                lowest = min(lowest, Int(scan.typicalAttenuation))
                highest = max(highest, Int(scan.typicalAttenuation))
            }
            start = storage.count
            guard lowest <= highest else {
                count = 0
                self.lowest = 0
                totalSeconds = 0
                return
            }
            count = highest - lowest + 1
            self.lowest = lowest
            storage.append(contentsOf: repeatElement(0, count: count))
            for scan in scans where scan.secondsSinceLastScan > 0 {
                storage[start + Int(scan.typicalAttenuation) - lowest] += scan.secondsSinceLastScan
            }
            for index in (start + 1)..<(start + count) { storage[index] += storage[index - 1] }
            totalSeconds = storage[start + count - 1]
        }

        /// The seconds of scans at typical attenuation `attenuation` or below.
        package func secondsAtOrBelow(_ attenuation: ENAttenuation, in storage: [Int]) -> Int {
            let index = Int(attenuation) - lowest
            if index < 0 { return 0 }
            if index >= count { return totalSeconds }
            return storage[start + index]
        }

        /// The seconds in each bucket under thresholds from `ENExposureConfiguration`'s effective attenuation
        /// thresholds: immediate `<=` the first, near `<=` the second, medium `<=` the third, other above,
        /// tested in that order (so a threshold below an earlier one adds nothing to its bucket).
        package func bucketSeconds(
            _ thresholds: (ENAttenuation, ENAttenuation, ENAttenuation), in storage: [Int]
        ) -> BucketSeconds {
            let second = max(thresholds.0, thresholds.1)
            let third = max(second, thresholds.2)
            let immediate = secondsAtOrBelow(thresholds.0, in: storage)
            let throughNear = secondsAtOrBelow(second, in: storage)
            let throughMedium = secondsAtOrBelow(third, in: storage)
            return BucketSeconds(
                immediate: immediate, near: throughNear - immediate, medium: throughMedium - throughNear,
                other: totalSeconds - throughMedium)
        }

        /// The seconds in each bucket of one window's scans (a profile built and read once).
        package static func bucketSeconds(
            of scans: [ENScanInstance], thresholds: (ENAttenuation, ENAttenuation, ENAttenuation)
        ) -> BucketSeconds {
            var storage: [Int] = []
            let profile = AttenuationProfile(scans, appendingTo: &storage)
            return profile.bucketSeconds(thresholds, in: storage)
        }
    }
}
