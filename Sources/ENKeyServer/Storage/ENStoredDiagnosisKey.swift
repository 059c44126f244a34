public import ENCore
public import Foundation

/// A diagnosis key as a key server stores it: the key as published first, from when it may be exported, and
/// its revision if any.
public struct ENStoredDiagnosisKey: Hashable, Sendable {
    /// The key with its original report type and days since onset.
    public var key: ENTemporaryExposureKey
    /// The time from which the key may be exported (Google's `created_at`).
    public var exportableAt: Date
    /// The key's revision, `nil` when it was not revised.
    public var revision: ENKeyServerRevision?
    /// The key's regions (with those its revision added) and traveller flag.
    public var origin: ENKeyServerKeyOrigin

    /// Creates a stored key.
    public init(
        key: ENTemporaryExposureKey, exportableAt: Date, revision: ENKeyServerRevision? = nil,
        origin: ENKeyServerKeyOrigin = ENKeyServerKeyOrigin()
    ) {
        self.key = key
        self.exportableAt = exportableAt
        self.revision = revision
        self.origin = origin
    }
}
