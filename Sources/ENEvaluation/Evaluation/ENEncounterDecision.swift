/// One configuration's decision for one encounter.
public struct ENEncounterDecision: Hashable, Sendable {
    /// The encounter's id.
    public var id: String
    /// Whether the ground truth is a contact under the request's rule.
    public var contact: Bool
    /// The reported decision (the even spread for histograms).
    public var notified: Bool
    /// False when the three placements of a histogram disagree.
    public var determinate: Bool
    /// The number the rule compared with its threshold (even spread).
    public var value: Double
    /// Whether some placement notifies.
    public var notifiedInSomePlacement: Bool
    /// Whether every placement notifies.
    public var notifiedInEveryPlacement: Bool

    /// Creates a decision.
    public init(
        id: String, contact: Bool, notified: Bool, determinate: Bool, value: Double,
        notifiedInSomePlacement: Bool, notifiedInEveryPlacement: Bool
    ) {
        self.id = id
        self.contact = contact
        self.notified = notified
        self.determinate = determinate
        self.value = value
        self.notifiedInSomePlacement = notifiedInSomePlacement
        self.notifiedInEveryPlacement = notifiedInEveryPlacement
    }
}
