/// Where the framework's user notifications go: `getExposureInfo(summary:userExplanation:)` shows the app's
/// explanation to the user, as iOS did with a notification.
public protocol ENNotificationSink: Sendable {
    /// Shows `userExplanation` to the user.
    func notifyUser(_ userExplanation: String)
}

/// A sink that drops every notification: the default where none is set.
public struct ENDiscardingNotificationSink: ENNotificationSink {
    /// Creates the sink.
    public init() {}
    /// Does nothing.
    public func notifyUser(_ userExplanation: String) {}
}
