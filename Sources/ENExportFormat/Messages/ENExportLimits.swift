/// Bounds on what a reader accepts, so that a hostile file cannot make it allocate without bound.
///
/// Every size is checked before anything is allocated for it (the declared sizes in a zip's central
/// directory) and again while bytes are produced (inflated bytes are counted, and inflation stops past
/// the limit). The defaults leave room for any file a writer following Apple's advice produces
/// (at most 16 MB and 750,000 keys) with a margin, and refuse anything larger.
public struct ENExportLimits: Hashable, Sendable {
    /// The largest input file (zip archive or bare `export.bin`), in bytes. Default 32 MiB.
    public var maximumFileSize: Int
    /// The largest uncompressed `export.bin`, in bytes. Default 32 MiB.
    public var maximumExportBinarySize: Int
    /// The largest uncompressed `export.sig`, in bytes. Default 64 KiB (ten signatures need under 2 KiB).
    public var maximumSignatureFileSize: Int
    /// The most keys (new plus revised) one file may hold. Default 1,000,000.
    public var maximumKeyCount: Int

    /// Creates limits.
    public init(
        maximumFileSize: Int = 32 << 20,
        maximumExportBinarySize: Int = 32 << 20,
        maximumSignatureFileSize: Int = 64 << 10,
        maximumKeyCount: Int = 1_000_000
    ) {
        self.maximumFileSize = maximumFileSize
        self.maximumExportBinarySize = maximumExportBinarySize
        self.maximumSignatureFileSize = maximumSignatureFileSize
        self.maximumKeyCount = maximumKeyCount
    }

    /// The default limits.
    public static let `default` = ENExportLimits()
}
