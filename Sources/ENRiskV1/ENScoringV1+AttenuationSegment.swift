public import ENCore
public import Foundation

extension ENScoringV1 {
    /// A stretch of an exposure spent at one attenuation: the unit version 1 scoring measures.
    public struct AttenuationSegment: Hashable, Sendable {
        /// The attenuation during the segment, in dB.
        public var attenuation: ENAttenuation
        /// The length of the segment, in seconds. A negative value counts as 0.
        public var duration: TimeInterval

        /// Creates a segment.
        public init(attenuation: ENAttenuation, duration: TimeInterval) {
            self.attenuation = attenuation
            self.duration = duration
        }
    }
}
