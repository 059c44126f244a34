/// An app allowed to publish (Google's authorized app): its health authority ID and how its requests are
/// checked.
public struct ENPublishAuthorizedApp: Sendable {
    /// The health authority ID requests name, matched lower-cased (Google stores and looks it up lower-cased).
    public var healthAuthorityID: String
    /// Who checks the verification certificates of this app's requests.
    public var verifier: any ENPublishCertificateVerifier
    /// Whether a certificate that does not verify is let through without its claims
    /// (`BypassHealthAuthorityVerification`). A certificate that verifies still applies its claims.
    public var bypassesCertificateVerification: Bool
    /// Whether stored keys may be sent again without a revision token (`BypassRevisionToken`).
    public var bypassesRevisionToken: Bool
    /// The regions this app's keys are stored with (Google's `AllowedRegions`, upper-cased when stored); empty
    /// (the default) for the configuration's ``ENPublishConfiguration/defaultRegion``.
    public var regions: [String]

    /// Creates an authorized app.
    public init(
        healthAuthorityID: String, verifier: any ENPublishCertificateVerifier,
        bypassesCertificateVerification: Bool = false, bypassesRevisionToken: Bool = false, regions: [String] = []
    ) {
        self.regions = regions
        self.healthAuthorityID = healthAuthorityID
        self.verifier = verifier
        self.bypassesCertificateVerification = bypassesCertificateVerification
        self.bypassesRevisionToken = bypassesRevisionToken
    }
}
