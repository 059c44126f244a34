public import Foundation

/// The user's pre-authorization of diagnosis-key release (iOS 14.4+ `preAuthorizeDiagnosisKeys`): when it was
/// given and whether the keys have been released under it.
///
/// Apple's pre-authorization lasts five days and is used up by one release; enforcing that is the manager's
/// job, the store keeps the facts.
public struct ENPreAuthorization: Hashable, Sendable {
    /// When the user pre-authorized the release.
    public var authorizedAt: Date
    /// When the keys were released under this pre-authorization, or `nil` while they have not been.
    public var releasedAt: Date?

    /// Whether the keys have been released under this pre-authorization.
    public var isReleased: Bool { releasedAt != nil }

    /// Creates a pre-authorization.
    public init(authorizedAt: Date, releasedAt: Date? = nil) {
        self.authorizedAt = authorizedAt
        self.releasedAt = releasedAt
    }
}
