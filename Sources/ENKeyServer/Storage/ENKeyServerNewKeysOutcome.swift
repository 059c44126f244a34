public import Foundation

/// What ``ENKeyServerStorage/insert(_:unlessAnyStored:)`` did: stored a publish's keys, all of them new, or found
/// some of them stored already and wrote nothing.
public enum ENKeyServerNewKeysOutcome: Hashable, Sendable {
    /// None of the checked keys was stored: the insertions were stored (skipping, as `INSERT … ON CONFLICT DO
    /// NOTHING` does, any that a concurrent publish stored meanwhile). The key data of the keys inserted, in the
    /// order given.
    case inserted([Data])
    /// Some of the checked keys were stored: nothing was written. The stored keys found, one per key data.
    case alreadyStored([ENStoredDiagnosisKey])
}
