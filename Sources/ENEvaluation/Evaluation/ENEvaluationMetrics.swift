/// The confusion counts and rates of one configuration; an undefined rate is nil, never 0.
public struct ENEvaluationMetrics: Hashable, Sendable {
    /// All encounters.
    public var encounters: Int
    /// Encounters that are contacts.
    public var contacts: Int
    /// Encounters notified (reported decision).
    public var notified: Int
    /// The fewest and most notifications the placements allow: notified in every placement, in some placement.
    public var notifiedRange: ClosedRange<Int>
    /// Encounters whose placements disagree.
    public var undetermined: Int
    /// Notified contacts.
    public var truePositives: Int
    /// Notified non-contacts.
    public var falsePositives: Int
    /// Not-notified non-contacts.
    public var trueNegatives: Int
    /// Not-notified contacts.
    public var falseNegatives: Int

    /// Counts the decisions.
    public init(_ decisions: [ENEncounterDecision]) {
        encounters = decisions.count
        contacts = decisions.count { $0.contact }
        notified = decisions.count { $0.notified }
        notifiedRange =
            decisions.count { $0.notifiedInEveryPlacement }...decisions.count { $0.notifiedInSomePlacement }
        undetermined = decisions.count { !$0.determinate }
        truePositives = decisions.count { $0.contact && $0.notified }
        falsePositives = decisions.count { !$0.contact && $0.notified }
        trueNegatives = decisions.count { !$0.contact && !$0.notified }
        falseNegatives = decisions.count { $0.contact && !$0.notified }
    }

    /// TP / contacts (recall, sensitivity).
    public var truePositiveRate: Double? { contacts == 0 ? nil : Double(truePositives) / Double(contacts) }
    /// FP / non-contacts.
    public var falsePositiveRate: Double? {
        encounters == contacts ? nil : Double(falsePositives) / Double(encounters - contacts)
    }
    /// TP / notified.
    public var precision: Double? { notified == 0 ? nil : Double(truePositives) / Double(notified) }
    /// 2 · precision · TPR / (precision + TPR).
    public var f1: Double? {
        guard let precision, let recall = truePositiveRate, precision + recall > 0 else { return nil }
        return 2 * precision * recall / (precision + recall)
    }
    /// Notifying the same fraction of everyone at random gives this TPR on average (and the same FPR).
    public var chanceTruePositiveRate: Double? { encounters == 0 ? nil : Double(notified) / Double(encounters) }
    /// The precision of notifying at random: contacts / encounters.
    public var chancePrecision: Double? { encounters == 0 ? nil : Double(contacts) / Double(encounters) }
}
