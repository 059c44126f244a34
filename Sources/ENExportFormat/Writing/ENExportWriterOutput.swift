public import ENCore

/// What an `ENExportWriter` wrote: the signed files and the random padding keys it added.
public struct ENExportWriterOutput: Hashable, Sendable {
    /// The signed files, in order.
    public var archives: [ENExportArchive]
    /// The random keys added to the last file by the writer's `ENExportPadding` (empty without padding). A
    /// server stores them, so that it can tell what it published.
    public var paddingKeys: [ENTemporaryExposureKey]

    /// Creates an output.
    public init(archives: [ENExportArchive], paddingKeys: [ENTemporaryExposureKey] = []) {
        self.archives = archives
        self.paddingKeys = paddingKeys
    }
}
