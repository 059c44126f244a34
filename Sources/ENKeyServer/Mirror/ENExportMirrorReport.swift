public import ENCore

/// What one ``ENExportMirror/run()`` did.
public struct ENExportMirrorReport: Sendable {
    /// A source file the run did not publish: its download, its format or its signature failed. It is not in the
    /// directory nor in `index.txt`, and the next run tries it again.
    public struct Refusal: Sendable {
        /// The file's name in the source's `index.txt` (without the root).
        public var name: String
        /// Why: the download's, the format's or the verification's error.
        public var error: ENError

        /// Creates a refusal.
        public init(name: String, error: ENError) {
            self.name = name
            self.error = error
        }
    }

    /// Whether another run held the directory's lock, so this one did nothing (as Google's mirror skips a locked
    /// mirror).
    public var skippedLocked = false
    /// The local names of the files this run fetched, verified and published, in the source's order.
    public var published: [String] = []
    /// The files this run refused (not published, tried again next run).
    public var refused: [Refusal] = []
    /// The local names this run removed because the source no longer lists them.
    public var removed: [String] = []
    /// The local names the mirrored `index.txt` lists, in the source's order.
    public var listed: [String] = []

    /// Creates an empty report.
    public init() {}
}
