extension ENScoringV2 {
    /// A window's whole seconds in each attenuation bucket (negative scan seconds count as 0).
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
    }
}
