/// A publish request, `POST /v1/publish`, as Google's exposure-notifications-server defines it
/// (`pkg/api/v1/exposure_types.go`, `Publish`).
///
/// Read one from a request body with ``init(json:)``, which decodes exactly as Go's `encoding/json` does for
/// Google's type; the publish rules are applied by ``ENPublishHandler``.
public struct ENPublishRequest: Hashable, Sendable {
    /// The keys to publish, JSON `temporaryExposureKeys`.
    public var temporaryExposureKeys: [ENPublishExposureKey]
    /// The app's health authority ID, JSON `healthAuthorityID` (looked up lower-cased).
    public var healthAuthorityID: String
    /// The verification certificate, a JWT from the verification server, JSON `verificationPayload`.
    public var verificationPayload: String
    /// The base64 secret of the certificate's HMAC over the keys, JSON `hmacKey`.
    public var hmacKey: String
    /// The interval of symptom onset (rounded down to its UTC day), or 0, JSON `symptomOnsetInterval`.
    public var symptomOnsetInterval: Int32
    /// Whether the user travelled, JSON `traveler`.
    public var traveler: Bool
    /// The revision token of an earlier publish of these keys, JSON `revisionToken`.
    public var revisionToken: String
    /// Random padding that hides the request's size, JSON `padding`; ignored.
    public var padding: String

    /// Creates a request.
    public init(
        temporaryExposureKeys: [ENPublishExposureKey] = [], healthAuthorityID: String = "",
        verificationPayload: String = "", hmacKey: String = "", symptomOnsetInterval: Int32 = 0,
        traveler: Bool = false, revisionToken: String = "", padding: String = ""
    ) {
        self.temporaryExposureKeys = temporaryExposureKeys
        self.healthAuthorityID = healthAuthorityID
        self.verificationPayload = verificationPayload
        self.hmacKey = hmacKey
        self.symptomOnsetInterval = symptomOnsetInterval
        self.traveler = traveler
        self.revisionToken = revisionToken
        self.padding = padding
    }
}
