public import ENCore
public import Foundation

extension ENEvaluationConfiguration {
    /// The configuration as a file that ``init(jsonData:file:)`` reads back.
    public func jsonData() throws(ENError) -> Data {
        let framework: Any
        do {
            framework = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(self.framework))
        } catch {
            throw ENError.internal("the exposure configuration cannot be encoded")
        }
        let object: [String: Any] = ["name": name, "source": source, "framework": framework, "app": appObject]
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        } catch {
            throw ENError.internal("the configuration cannot be encoded")
        }
    }

    /// The `app` member.
    var appObject: [String: Any] {
        switch rule {
        case .daySummary(let field, let seconds):
            return ["rule": rule.name, "field": field.rawValue, "notifyIfAtLeastSeconds": seconds]
        case .maximumRiskScore(let score):
            return ["rule": rule.name, "notifyIfAtLeast": score]
        case .weightedAttenuationDurations(let weights, let minutes):
            return ["rule": rule.name, "bucketWeights": weights, "notifyIfAtLeastMinutes": minutes]
        case .cwaV1(let weights, let divisor, let offset, let risk):
            return [
                "rule": rule.name, "bucketWeights": weights, "riskScoreNormalizationDivisor": divisor,
                "defaultBucketOffset": offset, "notifyIfAtLeast": risk,
            ]
        case .cwaExposureWindows(let parameters):
            return ["rule": rule.name, "riskCalculationParameters": Self.object(parameters)]
        }
    }

    static func object(_ range: ENCWARiskParameters.Range) -> [String: Any] {
        ["min": range.min, "max": range.max, "minExclusive": range.minExclusive, "maxExclusive": range.maxExclusive]
    }

    static func object(_ parameters: ENCWARiskParameters) -> [String: Any] {
        let offsets = parameters.reportTypeOffsets
        return [
            "minutesAtAttenuationFilters": parameters.minutesAtAttenuationFilters.map {
                [
                    "attenuationRange": object($0.attenuationRange),
                    "dropIfMinutesInRange": object($0.dropIfMinutesInRange),
                ]
            },
            "trlFilters": parameters.trlFilters.map { ["dropIfTrlInRange": object($0)] },
            "minutesAtAttenuationWeights": parameters.minutesAtAttenuationWeights.map {
                ["attenuationRange": object($0.attenuationRange), "weight": $0.weight] as [String: Any]
            },
            "normalizedTimePerEWToRiskLevelMapping": parameters.normalizedTimePerWindowToRiskLevel.map {
                ["normalizedTimeRange": object($0.range), "riskLevel": $0.riskLevel] as [String: Any]
            },
            "normalizedTimePerDayToRiskLevelMapping": parameters.normalizedTimePerDayToRiskLevel.map {
                ["normalizedTimeRange": object($0.range), "riskLevel": $0.riskLevel] as [String: Any]
            },
            "trlEncoding": [
                "infectiousnessOffsetStandard": parameters.infectiousnessOffsetStandard,
                "infectiousnessOffsetHigh": parameters.infectiousnessOffsetHigh,
                "reportTypeOffsetConfirmedTest": offsets[1] ?? 0,
                "reportTypeOffsetConfirmedClinicalDiagnosis": offsets[2] ?? 0,
                "reportTypeOffsetSelfReport": offsets[3] ?? 0, "reportTypeOffsetRecursive": offsets[4] ?? 0,
            ],
            "transmissionRiskValueMapping": parameters.transmissionRiskValueMapping.keys.sorted().map {
                ["transmissionRiskLevel": $0, "transmissionRiskValue": parameters.transmissionRiskValueMapping[$0]!]
                    as [String: Any]
            },
            "transmissionRiskLevelMultiplier": parameters.transmissionRiskLevelMultiplier,
            "maxEncounterAgeInDays": parameters.maxEncounterAgeInDays,
        ]
    }
}
