public import ENCore
public import ExposureNotificationKit

/// A radio that is always on, sends nothing and hears nothing, so that an app's logic runs (on a server or in a
/// test) without Bluetooth. It behaves as `ENEnvironment`'s default radio.
public struct ENSilentRadio: ENRadio {
    /// Creates the radio.
    public init() {}
    /// Always `true`.
    public var isPoweredOn: Bool { true }
    /// Does nothing.
    public func startBroadcasting(_ source: any ENBroadcastSource) {}
    /// Does nothing.
    public func stopBroadcasting() {}
    /// Does nothing: nothing is ever heard.
    public func startScanning(_ handler: @escaping @Sendable (ENSighting) -> Void) {}
    /// Does nothing.
    public func stopScanning() {}
}
