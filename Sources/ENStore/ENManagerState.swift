public import ENCore

/// What an `ENManager` keeps across restarts: whether Exposure Notification is enabled, the app's
/// authorization status, and the pre-authorization of diagnosis-key release.
public struct ENManagerState: Hashable, Sendable {
    /// Whether Exposure Notification is enabled (Apple's `exposureNotificationEnabled`); `false` at first.
    public var exposureNotificationEnabled: Bool
    /// The app's authorization status; `ENAuthorizationStatus.unknown` at first.
    public var authorizationStatus: ENAuthorizationStatus
    /// The pre-authorization of diagnosis-key release, or `nil` when none was given.
    public var preAuthorization: ENPreAuthorization?

    /// Creates a state; the defaults are a new store's.
    public init(
        exposureNotificationEnabled: Bool = false, authorizationStatus: ENAuthorizationStatus = .unknown,
        preAuthorization: ENPreAuthorization? = nil
    ) {
        self.exposureNotificationEnabled = exposureNotificationEnabled
        self.authorizationStatus = authorizationStatus
        self.preAuthorization = preAuthorization
    }
}
