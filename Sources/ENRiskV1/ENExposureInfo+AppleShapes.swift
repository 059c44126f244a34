internal import ENCore
internal import Foundation

extension ENExposureInfo: CustomStringConvertible {
    /// An exposure of no duration and no risk, as Apple's `ENExposureInfo()`: every property zero or empty, the
    /// date the reference date, the days since onset unknown.
    public init() {
        self.init(
            attenuationDurations: [], attenuationValue: 0, date: Date(timeIntervalSinceReferenceDate: 0), duration: 0,
            totalRiskScore: 0, totalRiskScoreFullRange: 0, transmissionRiskLevel: 0)
    }

    /// The type's name and its properties.
    public var description: String { ENDescription.of(self) }
}
