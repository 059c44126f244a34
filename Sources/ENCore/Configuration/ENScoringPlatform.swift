/// Whose framework's risk scoring to reproduce: Apple's (the default everywhere) or Google's Android EN module.
///
/// The package has one scoring implementation (the ENRiskV1 and ENRiskV2 modules); the platform is a parameter of
/// it. Apple is the framework this package implements, so every caller that does not name a platform scores
/// exactly as before. Android follows Google's published internals
/// (`google/exposure-notifications-internals` at aaada6ce5c, `KeyExposureEvaluator.java`,
/// `RiskScoreCalculator.java`, `DailySummaryUtils.java`); the differences are documented where they apply:
///
/// - version 1: `attenuationDurations` use `a < low`, `low <= a < high`, `a >= high` on the first two thresholds,
///   in unrounded time capped at 30 minutes; the attenuation value is the time-weighted mean in dB, rounded half
///   up; the duration is rounded to the nearest 5 minutes and bucketed in whole minutes; transmission risk
///   level 0 scores 1 and level n scores `transmissionRiskLevelValues[n - 1]`; the score is the product of the
///   four level values, unweighted and uncapped; an exposure below `minimumRiskScore` keeps its durations with
///   score 0;
/// - version 2: day summaries are not rounded up to the minute.
public enum ENScoringPlatform: String, Hashable, Sendable, CaseIterable, Codable {
    /// Apple's Exposure Notification framework (iOS): the package's default.
    case apple
    /// Google's Android Exposure Notification module, as its published internals score.
    case android
}
