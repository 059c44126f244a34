import Foundation

extension ENTemporaryExposureKey: Codable {
    private enum CodingKeys: String, CodingKey {
        case keyData, rollingStartNumber, rollingPeriod, transmissionRiskLevel, diagnosisReportType
        case daysSinceOnsetOfSymptoms, variantOfConcern
    }

    /// Decodes a key; `keyData` is base64 (Foundation's default for `Data`), absent optional fields take their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            keyData: try c.decode(Data.self, forKey: .keyData),
            rollingStartNumber: try c.decode(ENIntervalNumber.self, forKey: .rollingStartNumber),
            rollingPeriod: try c.decodeIfPresent(ENIntervalNumber.self, forKey: .rollingPeriod)
                ?? Self.defaultRollingPeriod,
            transmissionRiskLevel: try c.decodeIfPresent(ENRiskLevel.self, forKey: .transmissionRiskLevel) ?? 0,
            diagnosisReportType: try c.decodeIfPresent(ENDiagnosisReportType.self, forKey: .diagnosisReportType)
                ?? .unknown,
            daysSinceOnsetOfSymptoms: try c.decodeIfPresent(Int.self, forKey: .daysSinceOnsetOfSymptoms)
                ?? ENDaysSinceOnsetOfSymptomsUnknown,
            variantOfConcern: try c.decodeIfPresent(ENVariantOfConcernType.self, forKey: .variantOfConcern) ?? .unknown
        )
    }

    /// Encodes a key; an unknown days-since-onset is omitted.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(keyData, forKey: .keyData)
        try c.encode(rollingStartNumber, forKey: .rollingStartNumber)
        try c.encode(rollingPeriod, forKey: .rollingPeriod)
        try c.encode(transmissionRiskLevel, forKey: .transmissionRiskLevel)
        try c.encode(diagnosisReportType, forKey: .diagnosisReportType)
        if hasKnownDaysSinceOnsetOfSymptoms {
            try c.encode(daysSinceOnsetOfSymptoms, forKey: .daysSinceOnsetOfSymptoms)
        }
        try c.encode(variantOfConcern, forKey: .variantOfConcern)
    }
}
