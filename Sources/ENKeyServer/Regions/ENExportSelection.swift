public import ENCore

/// Which stored keys an export configuration's files carry, by their ``ENKeyServerKeyOrigin``: Google's export
/// configuration fields `InputRegions`, `ExcludeRegions`, `IncludeTravelers` and `OnlyNonTravelers`, applied as its
/// `IterateExposures` query applies them (`internal/publish/database/exposure.go`, `generateExposureQuery`).
///
/// A key is selected when all of these hold:
/// - one of its regions is an input region (``inputRegions``, or the output region when that is empty: Google's
///   `EffectiveInputRegions`), or ``includesTravelers`` is set and the key's owner travelled;
/// - none of its regions is an excluded region (``excludedRegions``), traveller or not;
/// - with ``onlyNonTravelers``, its owner did not travel.
///
/// Regions compare upper-cased (Google stores a key's regions upper-cased). Google's query applies the region
/// conditions only when there is exactly one input region, or exactly one excluded region (`len(...) == 1`), so that
/// there a second input region selects every region and a second excluded region excludes none; here every listed
/// region counts, as the fields' names and Google's own comments say they should.
public struct ENExportSelection: Hashable, Sendable {
    /// The regions whose keys are exported; empty (the default) for the output region alone.
    public var inputRegions: [String]
    /// The regions whose keys are never exported, even a traveller's; empty by default.
    public var excludedRegions: [String]
    /// Whether the keys of every traveller are exported too, whatever their regions (Google's `IncludeTravelers`).
    public var includesTravelers: Bool
    /// Whether only the keys of users who did not travel are exported (Google's `OnlyNonTravelers`).
    public var onlyNonTravelers: Bool

    /// Creates a selection; the defaults select the keys published for the output region.
    public init(
        inputRegions: [String] = [], excludedRegions: [String] = [], includesTravelers: Bool = false,
        onlyNonTravelers: Bool = false
    ) {
        self.inputRegions = inputRegions
        self.excludedRegions = excludedRegions
        self.includesTravelers = includesTravelers
        self.onlyNonTravelers = onlyNonTravelers
    }

    /// Whether a key of `origin` goes into the files of a configuration whose output region is `outputRegion`.
    public func selects(_ origin: ENKeyServerKeyOrigin, outputRegion: String) -> Bool {
        if onlyNonTravelers && origin.traveler { return false }
        let regions = Set(origin.regions.map { $0.uppercased() })
        if excludedRegions.contains(where: { regions.contains($0.uppercased()) }) { return false }
        let input = inputRegions.isEmpty ? [outputRegion] : inputRegions
        return input.contains(where: { regions.contains($0.uppercased()) }) || (includesTravelers && origin.traveler)
    }

    /// Checks every region named.
    ///
    /// - Throws: `ENError.Code.badParameter` naming the first region that cannot be one.
    public func validate() throws(ENError) {
        for (section, regions) in [("inputRegions", inputRegions), ("excludedRegions", excludedRegions)] {
            for (index, region) in regions.enumerated() {
                do {
                    try ENKeyServerKeyOrigin.validate(region: region)
                } catch {
                    throw ENError(.badParameter, error.reason, context: .init(section: section, index: index))
                }
            }
        }
    }

    /// The keys of `contents` this selection exports (a key without a recorded origin counts as a non-traveller's
    /// published for `outputRegion`); what it read stays as read, so that the storage marks every key of the batch
    /// as handled.
    func filter(_ contents: ENKeyServerExportContents, outputRegion: String) -> ENKeyServerExportContents {
        let local = ENKeyServerKeyOrigin(regions: [outputRegion])
        var selected = contents
        selected.keys = contents.keys.filter {
            selects(contents.origins[$0.keyData] ?? local, outputRegion: outputRegion)
        }
        selected.revisedKeys = contents.revisedKeys.filter {
            selects(contents.origins[$0.keyData] ?? local, outputRegion: outputRegion)
        }
        return selected
    }
}
