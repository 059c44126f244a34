/// How confident the receiving device is in its Bluetooth calibration.
public enum ENCalibrationConfidence: UInt8, Hashable, Sendable, CaseIterable, Codable {
    /// No calibration data.
    case lowest = 0
    /// Calibration data from a similar device.
    case low = 1
    /// Calibration data for the device model, possibly incomplete.
    case medium = 2
    /// Full calibration data for the device model.
    case high = 3
}
