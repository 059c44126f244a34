/// `ENEnvironment`'s default consent: the user declines every prompt, so nothing is enabled or shared unless the
/// embedder says how the user answers.
@usableFromInline
struct DecliningConsent: ENConsentProvider {
    @usableFromInline init() {}
    @usableFromInline func authorizeExposureNotification() async -> Bool { false }
    @usableFromInline func releaseDiagnosisKeys() async -> Bool { false }
    @usableFromInline func preAuthorizeDiagnosisKeyRelease() async -> Bool { false }
}
