/// Padding of small export batches with random keys, as Google's exposure-notifications-server does, so that a
/// file's size does not tell how many people shared keys.
///
/// When a batch has fewer than ``minimumKeys`` new keys, its last file gets random keys until it holds at least
/// `minimumKeys + r` new keys, `r` drawn uniformly from `0...range`: each padding key copies, round-robin, the
/// transmission risk level, rolling start and period, report type, days since onset and variant of one of the
/// file's real new keys, whole rounds at a time, stopping early at the file's key or byte limit. A file of `n`
/// real keys therefore holds `n * ceil(target / n)` new keys. A batch whose last file has no new keys is not
/// padded (padding revised keys protects nothing: they appeared before as new keys).
public struct ENExportPadding: Hashable, Sendable {
    /// The fewest new keys a padded batch holds. Google's default: 1000.
    public var minimumKeys: Int
    /// The largest random extra over ``minimumKeys``. Google's default: 100.
    public var range: Int

    /// Google's defaults: at least 1000 keys plus 0 to 100 more.
    public static let googleServer = ENExportPadding(minimumKeys: 1000, range: 100)

    /// Creates a padding rule.
    public init(minimumKeys: Int, range: Int) {
        self.minimumKeys = minimumKeys
        self.range = range
    }
}
