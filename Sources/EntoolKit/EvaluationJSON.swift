import ENCore
import ENEvaluation
import Foundation

/// The `entool evaluate --json` shape (see `Documentation/entool.md`): undefined rates are JSON null.
enum EvaluationJSON {
    static func number(_ value: Double?) -> Any {
        guard let value, value.isFinite else { return NSNull() }
        return value
    }

    static func object(
        set: ENLabelledEncounterSet, platform: String, results: [ENEvaluator.Result], sweeps: [ENThresholdSweep],
        optimum: ENConfigurationSearch.Optimum?, sweepRequested: Bool, optimizeRequested: Bool
    ) throws -> [String: Any] {
        let configurations: [[String: Any]] = results.map { result in
            let m = result.metrics
            return [
                "name": result.name, "notified": m.notified,
                "notifiedRange": [m.notifiedRange.lowerBound, m.notifiedRange.upperBound],
                "undetermined": m.undetermined, "truePositives": m.truePositives,
                "falsePositives": m.falsePositives, "trueNegatives": m.trueNegatives,
                "falseNegatives": m.falseNegatives, "truePositiveRate": number(m.truePositiveRate),
                "falsePositiveRate": number(m.falsePositiveRate), "precision": number(m.precision),
                "f1": number(m.f1), "chanceTruePositiveRate": number(m.chanceTruePositiveRate),
                "decisions": result.decisions.map {
                    [
                        "id": $0.id, "contact": $0.contact, "notified": $0.notified, "determinate": $0.determinate,
                        "value": number($0.value),
                    ] as [String: Any]
                },
            ]
        }
        let sweepObjects: Any =
            sweepRequested
            ? zip(results, sweeps).map { result, sweep in
                [
                    "name": result.name, "auc": number(sweep.areaUnderCurve),
                    "points": sweep.points.map {
                        [
                            "threshold": number($0.threshold), "falsePositiveRate": $0.falsePositiveRate,
                            "truePositiveRate": $0.truePositiveRate,
                        ] as [String: Any]
                    },
                ] as [String: Any]
            } : NSNull()
        var optimumObject: Any = NSNull()
        if let optimum {
            optimumObject =
                [
                    "configuration": try JSONSerialization.jsonObject(with: try optimum.configuration.jsonData()),
                    "truePositiveRate": optimum.truePositiveRate, "falsePositiveRate": optimum.falsePositiveRate,
                ] as [String: Any]
        }
        return [
            "encounters": set.encounters.count, "contacts": results.first?.metrics.contacts ?? NSNull(),
            "platform": platform, "configurations": configurations, "sweeps": sweepObjects, "optimum": optimumObject,
        ]
    }
}
