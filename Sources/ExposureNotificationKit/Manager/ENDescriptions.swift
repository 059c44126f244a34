internal import ENCore

// `description` on the facade's types, as Apple's classes have it.

extension ENExposureDetectionSummary: CustomStringConvertible {
    /// The type's name and its properties.
    public var description: String { ENDescription.of(self, omitting: ["origin"]) }
}

extension ENStatus: CustomStringConvertible {
    /// The case's name.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .active: "active"
        case .disabled: "disabled"
        case .bluetoothOff: "bluetoothOff"
        case .restricted: "restricted"
        case .paused: "paused"
        case .unauthorized: "unauthorized"
        }
    }
}

extension ENActivityFlags: CustomStringConvertible {
    /// The flags' names, `[periodicRun]`, with the raw value of bits without a name.
    public var description: String {
        var names: [String] = []
        var rest = self
        for (flag, name) in [
            (ENActivityFlags.reserved1, "reserved1"), (.reserved2, "reserved2"), (.periodicRun, "periodicRun"),
            (.preAuthorizedKeyReleaseNotificationTapped, "preAuthorizedKeyReleaseNotificationTapped"),
        ] where contains(flag) {
            names.append(name)
            rest.remove(flag)
        }
        if !rest.isEmpty { names.append("0x" + String(rest.rawValue, radix: 16)) }
        return "[" + names.joined(separator: ", ") + "]"
    }
}

extension ENManager: CustomStringConvertible {
    /// The manager's observable state: `ENManager(exposureNotificationStatus: active, exposureNotificationEnabled:
    /// true)`.
    public var description: String {
        "ENManager(exposureNotificationStatus: \(exposureNotificationStatus), "
            + "exposureNotificationEnabled: \(exposureNotificationEnabled))"
    }
}

extension ENExposureDetectionSession: CustomStringConvertible {
    /// The session's batch size: `ENExposureDetectionSession(maximumKeyCount: 1000)`.
    public var description: String { "ENExposureDetectionSession(maximumKeyCount: \(maximumKeyCount))" }
}
