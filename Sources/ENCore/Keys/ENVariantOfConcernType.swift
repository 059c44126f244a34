/// The variant of concern a shared key was associated with (iOS 15.2; export field 8).
public enum ENVariantOfConcernType: UInt32, Hashable, Sendable, CaseIterable, Codable {
    /// No variant information.
    case unknown = 0
    /// Variant type 1.
    case type1 = 1
    /// Variant type 2.
    case type2 = 2
    /// Variant type 3.
    case type3 = 3
    /// Variant type 4.
    case type4 = 4
}
