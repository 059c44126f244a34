/// The status of Exposure Notification on the device, as Apple's `ENStatus` with Apple's raw values.
public enum ENStatus: Int, Hashable, Sendable, CaseIterable {
    /// The status is not known yet: the manager is not activated.
    case unknown = 0
    /// Exposure Notification is active: broadcasting and scanning.
    case active = 1
    /// Exposure Notification is turned off.
    case disabled = 2
    /// Bluetooth is off, so nothing is broadcast or seen although Exposure Notification is enabled.
    case bluetoothOff = 3
    /// A system policy does not allow Exposure Notification.
    case restricted = 4
    /// Exposure Notification is paused.
    case paused = 5
    /// The app is not authorized to use Exposure Notification.
    case unauthorized = 6
}
