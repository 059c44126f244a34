public import ENRiskV1
internal import Foundation

extension ENExposureInfo {
    /// iOS 13.5's metadata, which apps of that time read before these values became properties:
    /// `"attenuationDurations"` (`[NSNumber]`, seconds) and `"totalRiskScoreFullRange"` (`NSNumber`), the values of
    /// `attenuationDurations` and `totalRiskScoreFullRange`.
    public var metadata: [AnyHashable: Any]? {
        [
            "attenuationDurations": attenuationDurations.map { NSNumber(value: $0) },
            "totalRiskScoreFullRange": NSNumber(value: totalRiskScoreFullRange),
        ]
    }
}
