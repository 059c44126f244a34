/// The two repeated key fields of `TemporaryExposureKeyExport`.
public enum ENExportKeySection: Int, Sendable, CaseIterable {
    /// Field 7, `keys`: keys released for the first time.
    case keys = 7
    /// Field 8, `revised_keys`: keys whose status changed.
    case revisedKeys = 8

    /// The field's name in `export.proto`.
    public var fieldName: String { self == .keys ? "keys" : "revised_keys" }

    /// The field number, as the wire reader and writer use it.
    var field: UInt32 { UInt32(rawValue) }
}
