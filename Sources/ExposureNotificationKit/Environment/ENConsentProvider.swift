/// The user's answers to the prompts Apple's framework shows: what a real device asks its user, and what a test
/// or a simulation answers in the user's place.
///
/// Every method is asked at the moment the framework would show its prompt; `true` means the user agreed.
public protocol ENConsentProvider: Sendable {
    /// The first `setExposureNotificationEnabled(true)`: "Enable Exposure Notifications?".
    func authorizeExposureNotification() async -> Bool
    /// Every `getDiagnosisKeys` and `getTestDiagnosisKeys`: "Share your keys with the health authority?".
    func releaseDiagnosisKeys() async -> Bool
    /// `preAuthorizeDiagnosisKeys`: "Share your keys automatically when your test result arrives?".
    func preAuthorizeDiagnosisKeyRelease() async -> Bool
}
