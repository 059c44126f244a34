public import ENCore

/// What one ``ENExportImporter/run()`` did.
public struct ENExportImportResult: Sendable {
    /// The files `index.txt` listed for the first time.
    public var newFiles = 0
    /// The open files `index.txt` no longer listed, closed as failed.
    public var closedFiles = 0
    /// The files imported.
    public var importedFiles: [String] = []
    /// The files that failed (a download, a signature, a parse), each with why; they are tried again later.
    public var failedFiles: [(url: String, error: ENError)] = []
    /// The keys inserted.
    public var insertedKeys = 0
    /// The stored keys revised.
    public var revisedKeys = 0
    /// The keys left out: invalid as Google's `FromExportKey` judges them, a revision of a key another import or a
    /// publish brought, or one Google's transitions refuse.
    public var droppedKeys = 0

    /// Creates an empty result.
    public init() {}
}
