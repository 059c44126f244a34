internal import ENCore
internal import ENStore

/// What the user allowed, as the framework's state records it: the checks of `ENManager`'s operations and of
/// `ENExposureDetectionSession`, in one place.
extension FrameworkStorage {
    /// Throws unless the user authorized Exposure Notification: `restricted` under a device policy,
    /// `notAuthorized` otherwise.
    func requireAuthorization() throws(ENError) {
        switch try managerState().authorizationStatus {
        case .authorized: return
        case .restricted: throw ENError(.restricted, "a system policy does not allow Exposure Notification")
        case .unknown, .notAuthorized:
            throw ENError(.notAuthorized, "the user has not authorized Exposure Notification")
        }
    }

    /// Throws unless detection may run: the user authorized Exposure Notification (see
    /// ``requireAuthorization()``) and it is enabled (`notEnabled`).
    func requireDetectionAllowed() throws(ENError) {
        try requireAuthorization()
        guard try managerState().exposureNotificationEnabled else {
            throw ENError(.notEnabled, "Exposure Notification is not enabled")
        }
    }
}
