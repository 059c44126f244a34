package import ENCore

extension ENScoringV2 {
    /// A window's scan seconds accumulated by typical attenuation: the seconds at or below each attenuation, so
    /// that the seconds in every bucket, under any thresholds, take three look-ups.
    ///
    /// ``PreparedWindows`` builds one per window and reads it under many configurations; the bucket rule is
    /// ``BucketSeconds``'s (one window scored once sums its scans directly,
    /// ``BucketSeconds/init(_:thresholds:)``).
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

        /// The seconds in each bucket under `ENExposureConfiguration`'s effective attenuation thresholds
        /// (see ``BucketSeconds``): three look-ups.
        package func bucketSeconds(
            _ thresholds: (ENAttenuation, ENAttenuation, ENAttenuation), in storage: [Int]
        ) -> BucketSeconds {
            let bounds = BucketSeconds.upperBounds(thresholds)
            return BucketSeconds(
                secondsAtOrBelow: (
                    secondsAtOrBelow(bounds.0, in: storage), secondsAtOrBelow(bounds.1, in: storage),
                    secondsAtOrBelow(bounds.2, in: storage)
                ), totalSeconds: totalSeconds)
        }
    }
}
