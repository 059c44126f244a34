/// How an `ENExportWriter` orders keys into files and encodes them.
public enum ENExportLayout: Hashable, Sendable {
    /// New and revised keys shuffled together with a secure generator, every key field written explicitly
    /// (the rolling period included), the i-th file (0-based) ending at `endTimestamp + i`.
    case shuffled
    /// As Google's exposure-notifications-server writes its files: new keys then revised keys, each group sorted
    /// by key bytes and cut into files in that order, the keys of each file sorted by key bytes; a rolling start
    /// of 0 and a rolling period of 144 left out (the transmission risk level always written); in a batch of
    /// more than one file the n-th file (1-based) ends at `endTimestamp + n`, a single file at `endTimestamp`.
    case googleServer
}
