public import ENCore

/// `ENEnvironment`'s default radio: always on, sends nothing and hears nothing, so that an app's logic runs (on a
/// server or in a test) without Bluetooth. `ExposureNotificationKitTesting` ships the same radio as a public type
/// for tests.
@usableFromInline
struct SilentRadio: ENRadio {
    @usableFromInline init() {}
    @usableFromInline var isPoweredOn: Bool { true }
    @usableFromInline func startBroadcasting(_ source: any ENBroadcastSource) {}
    @usableFromInline func stopBroadcasting() {}
    @usableFromInline func startScanning(_ handler: @escaping @Sendable (ENSighting) -> Void) {}
    @usableFromInline func stopScanning() {}
}
