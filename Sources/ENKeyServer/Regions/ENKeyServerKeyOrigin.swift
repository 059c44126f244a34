public import ENCore

/// Where a stored diagnosis key comes from, as Google's `Exposure` records it: the regions it was published for
/// (`regions`, upper-cased) and whether its owner said they travelled (`traveler`). Export configurations select keys
/// by it (``ENExportSelection``).
public struct ENKeyServerKeyOrigin: Hashable, Sendable {
    /// The regions of the key, upper-cased, without repeats, in the order they were added.
    public var regions: [String]
    /// Whether the publish request said the user travelled (the publish API's `traveler`).
    public var traveler: Bool
    /// The import that brought the key from another server's files (``ENExportImportConfiguration/name``, Google's
    /// `export_import_id`); `nil` for a key published here (Google's `local_provenance`). Only the same import may
    /// revise an imported key.
    public var importName: String?

    /// Creates an origin: `regions` are upper-cased and repeats dropped.
    public init(regions: [String] = [], traveler: Bool = false, importName: String? = nil) {
        self.regions = []
        self.traveler = traveler
        self.importName = importName
        add(regions)
    }

    /// Adds the regions the key lacks, upper-cased, as a revision does (Google's `AddMissingRegions`: a revision
    /// adds regions and never removes one).
    public mutating func add(_ newRegions: [String]) {
        for region in newRegions.map({ $0.uppercased() }) where !regions.contains(region) { regions.append(region) }
    }

    /// Checks that `region` can name a region: 1 to 64 characters, none of them a comma, white space or a control
    /// character (regions are MCCs such as `310` or codes such as `US`).
    ///
    /// - Throws: `ENError.Code.badParameter` naming the region and what is wrong with it.
    public static func validate(region: String) throws(ENError) {
        guard !region.isEmpty, region.unicodeScalars.count <= 64 else {
            throw ENError.badParameter("region \"\(region)\" must have 1 to 64 characters")
        }
        if let bad = region.unicodeScalars.first(where: {
            $0 == "," || $0.properties.isWhitespace || $0.properties.generalCategory == .control
        }) {
            throw ENError.badParameter(
                "region \"\(region)\" has \"\(bad.escaped(asASCII: true))\": a region has no comma, space or control "
                    + "character")
        }
    }
}
