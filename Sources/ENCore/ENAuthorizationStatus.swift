/// Whether the user authorized the app to use Exposure Notification: Apple's `ENAuthorizationStatus`, with
/// Apple's raw values.
public enum ENAuthorizationStatus: Int, Hashable, Sendable, CaseIterable {
    /// The user has not decided yet (0).
    case unknown = 0
    /// The app cannot use Exposure Notification, for example under a device policy (1).
    case restricted = 1
    /// The user denied the app (2).
    case notAuthorized = 2
    /// The user authorized the app (3).
    case authorized = 3
}
