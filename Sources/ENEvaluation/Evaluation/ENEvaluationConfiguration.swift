public import ENCore
public import Foundation

/// A configuration to evaluate: the framework's exposure configuration and the app's notification rule.
public struct ENEvaluationConfiguration: Hashable, Sendable {
    /// The configuration's name in results.
    public var name: String
    /// Where every value comes from.
    public var source: String
    /// The exposure configuration the framework scored with.
    public var framework: ENExposureConfiguration
    /// The app's rule.
    public var rule: ENNotificationRule

    /// Creates a configuration.
    public init(name: String, source: String = "", framework: ENExposureConfiguration, rule: ENNotificationRule) {
        self.name = name
        self.source = source
        self.framework = framework
        self.rule = rule
    }

    /// Decodes a configuration file (`name`, `source`, `framework`: the sample server's JSON, `app`: the rule).
    ///
    /// - Parameters:
    ///   - jsonData: the file's bytes.
    ///   - file: names the configuration in errors until its `name` is known.
    /// - Throws: `ENError.Code.badFormat` or `ENError.Code.badParameter` with `configuration <name>` as
    ///   the context's section and the field.
    public init(jsonData: Data, file: String = "configuration") throws(ENError) {
        var root = try JSONNode.root(jsonData, section: "configuration \(file)")
        name = try root.required("name").string()
        root = root.renamed(section: "configuration \(name)")
        source = try root.required("source").string()
        let frameworkNode = try root.required("framework")
        _ = try frameworkNode.object()
        let frameworkData: Data
        do {
            frameworkData = try JSONSerialization.data(withJSONObject: frameworkNode.value)
        } catch {
            throw frameworkNode.failure("cannot be re-encoded")
        }
        do {
            framework = try ENExposureConfiguration(jsonData: frameworkData)
        } catch {
            let inner = error.context.field.map { "framework.\($0)" } ?? "framework"
            throw ENError(error.code, error.reason, context: ENError.Context(section: root.section, field: inner))
        }
        rule = try Self.rule(try root.required("app"))
    }

    static func rule(_ app: JSONNode) throws(ENError) -> ENNotificationRule {
        let ruleNode = try app.required("rule")
        switch try ruleNode.string() {
        case "daySummary":
            try app.onlyKeys(["rule", "field", "notifyIfAtLeastSeconds"])
            let fieldNode = try app.required("field")
            guard let field = ENNotificationRule.DaySummaryField(rawValue: try fieldNode.string()) else {
                throw fieldNode.failure("must be scoreSum, weightedDurationSum or maximumScore")
            }
            return .daySummary(
                field: field,
                notifyIfAtLeastSeconds: try app.required("notifyIfAtLeastSeconds").number(in: 0...Double.infinity))
        case "maximumRiskScore":
            try app.onlyKeys(["rule", "notifyIfAtLeast"])
            return .maximumRiskScore(notifyIfAtLeast: try app.required("notifyIfAtLeast").integer(in: 0...4096))
        case "weightedAttenuationDurations":
            try app.onlyKeys(["rule", "bucketWeights", "notifyIfAtLeastMinutes"])
            return .weightedAttenuationDurations(
                bucketWeights: try weights(try app.required("bucketWeights"), count: 4),
                notifyIfAtLeastMinutes: try app.required("notifyIfAtLeastMinutes").number(in: 0...Double.infinity))
        case "cwaV1":
            try app.onlyKeys([
                "rule", "bucketWeights", "riskScoreNormalizationDivisor", "defaultBucketOffset", "notifyIfAtLeast",
            ])
            let divisorNode = try app.required("riskScoreNormalizationDivisor")
            let divisor = try divisorNode.number()
            guard divisor > 0 else { throw divisorNode.failure("must be greater than 0") }
            return .cwaV1(
                bucketWeights: try weights(try app.required("bucketWeights"), count: 3),
                riskScoreNormalizationDivisor: divisor,
                defaultBucketOffset: try app.optional("defaultBucketOffset")?.number() ?? 0,
                notifyIfAtLeast: try app.required("notifyIfAtLeast").number(in: 0...Double.infinity))
        case "cwaExposureWindows":
            try app.onlyKeys(["rule", "riskCalculationParameters"])
            return .cwaExposureWindows(try cwaParameters(try app.required("riskCalculationParameters")))
        default:
            throw ruleNode.failure("unknown rule")
        }
    }

    static func weights(_ node: JSONNode, count: Int) throws(ENError) -> [Double] {
        let items = try node.array()
        guard items.count <= count else { throw node.failure("must have at most \(count) entries") }
        var result: [Double] = []
        for item in items { result.append(try item.number(in: 0...Double.infinity)) }
        return result
    }

    static func range(_ node: JSONNode) throws(ENError) -> ENCWARiskParameters.Range {
        try node.onlyKeys(["min", "max", "minExclusive", "maxExclusive"])
        return ENCWARiskParameters.Range(
            min: try node.required("min").number(), max: try node.required("max").number(),
            minExclusive: try node.optional("minExclusive")?.bool() ?? false,
            maxExclusive: try node.optional("maxExclusive")?.bool() ?? false)
    }

    static func levels(_ node: JSONNode?) throws(ENError) -> [ENCWARiskParameters.LevelMapping] {
        guard let node else { return [] }
        var result: [ENCWARiskParameters.LevelMapping] = []
        for item in try node.array() {
            result.append(
                .init(
                    range: try range(try item.required("normalizedTimeRange")),
                    riskLevel: try item.required("riskLevel").integer(in: 1...2)))
        }
        return result
    }

    static func cwaParameters(_ node: JSONNode) throws(ENError) -> ENCWARiskParameters {
        try node.onlyKeys([
            "minutesAtAttenuationFilters", "trlFilters", "minutesAtAttenuationWeights",
            "normalizedTimePerEWToRiskLevelMapping", "normalizedTimePerDayToRiskLevelMapping", "trlEncoding",
            "transmissionRiskValueMapping", "transmissionRiskLevelMultiplier", "maxEncounterAgeInDays",
        ])
        var filters: [ENCWARiskParameters.MinutesFilter] = []
        for item in try node.optional("minutesAtAttenuationFilters")?.array() ?? [] {
            filters.append(
                .init(
                    attenuationRange: try range(try item.required("attenuationRange")),
                    dropIfMinutesInRange: try range(try item.required("dropIfMinutesInRange"))))
        }
        var trlFilters: [ENCWARiskParameters.Range] = []
        for item in try node.optional("trlFilters")?.array() ?? [] {
            trlFilters.append(try range(try item.required("dropIfTrlInRange")))
        }
        var weights: [ENCWARiskParameters.Weight] = []
        for item in try node.optional("minutesAtAttenuationWeights")?.array() ?? [] {
            weights.append(
                .init(
                    attenuationRange: try range(try item.required("attenuationRange")),
                    weight: try item.required("weight").number(in: 0...Double.infinity)))
        }
        let encoding = try node.required("trlEncoding")
        let offsetNames = [
            (1, "reportTypeOffsetConfirmedTest"), (2, "reportTypeOffsetConfirmedClinicalDiagnosis"),
            (3, "reportTypeOffsetSelfReport"), (4, "reportTypeOffsetRecursive"),
        ]
        var offsets: [Int: Int] = [:]
        for (type, key) in offsetNames { offsets[type] = try encoding.optional(key)?.integer(in: -8...8) ?? 0 }
        var mapping: [Int: Double] = [:]
        for item in try node.optional("transmissionRiskValueMapping")?.array() ?? [] {
            mapping[try item.required("transmissionRiskLevel").integer(in: 1...8)] =
                try item.required("transmissionRiskValue").number(in: 0...Double.infinity)
        }
        return ENCWARiskParameters(
            minutesAtAttenuationFilters: filters, trlFilters: trlFilters, minutesAtAttenuationWeights: weights,
            normalizedTimePerWindowToRiskLevel: try levels(try node.optional("normalizedTimePerEWToRiskLevelMapping")),
            normalizedTimePerDayToRiskLevel: try levels(try node.optional("normalizedTimePerDayToRiskLevelMapping")),
            reportTypeOffsets: offsets,
            infectiousnessOffsetStandard: try encoding.optional("infectiousnessOffsetStandard")?.integer(in: -8...8)
                ?? 0,
            infectiousnessOffsetHigh: try encoding.optional("infectiousnessOffsetHigh")?.integer(in: -8...8) ?? 0,
            transmissionRiskValueMapping: mapping,
            transmissionRiskLevelMultiplier: try node.optional("transmissionRiskLevelMultiplier")?.number() ?? 0,
            maxEncounterAgeInDays: try node.optional("maxEncounterAgeInDays")?.integer(in: 0...3650) ?? 0)
    }
}
