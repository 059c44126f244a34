public import ENCore
public import Foundation

/// A key to store, and the time from which it may be exported.
public struct ENKeyServerInsertion: Hashable, Sendable {
    /// The key, with its report type and days since onset.
    public var key: ENTemporaryExposureKey
    /// The time from which the key may be exported (Google's `created_at`: the arrival hour, or for a key still
    /// valid on arrival the hour after its end).
    public var exportableAt: Date
    /// The key's regions and traveller flag.
    public var origin: ENKeyServerKeyOrigin

    /// Creates an insertion.
    public init(key: ENTemporaryExposureKey, exportableAt: Date, origin: ENKeyServerKeyOrigin = ENKeyServerKeyOrigin())
    {
        self.key = key
        self.exportableAt = exportableAt
        self.origin = origin
    }
}
