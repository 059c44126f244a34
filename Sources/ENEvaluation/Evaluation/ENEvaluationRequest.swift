public import ENCore
public import Foundation

/// What an evaluation needs beyond the data and the configurations: the contact rule, default key metadata,
/// "now" and the platform whose scoring is reproduced.
public struct ENEvaluationRequest: Hashable, Sendable {
    /// The ground-truth rule.
    public var contactRule: ENContactRule
    /// Key metadata for encounters (and windows) that do not carry it.
    public var defaults: ENKeyMetadata
    /// "Now": dates windows given by age and ages windows given by date. A parameter: the module reads no clock.
    public var now: Date
    /// Whose framework and app scored: Apple (the default) or Android. See the ENEvaluation article's
    /// "Apple and Android" section for every difference and its source.
    public var platform: ENScoringPlatform

    /// Creates a request.
    public init(
        contactRule: ENContactRule = ENContactRule(), defaults: ENKeyMetadata = ENKeyMetadata(), now: Date,
        platform: ENScoringPlatform = .apple
    ) {
        self.contactRule = contactRule
        self.defaults = defaults
        self.now = now
        self.platform = platform
    }
}
