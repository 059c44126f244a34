public import ENCore
internal import Foundation

/// The JSON body of a request to Google's publish API v1 (`POST /v1/publish`), as an app sends it: the one
/// builder of the tests' publish requests (the publish API's own tests and enserver's).
public struct PublishRequestBody: Sendable {
    /// The keys: key data in base64, rolling start and period, transmission risk (report types and days since
    /// onset are the certificate's and the server's business, not the request's).
    public var keys: [ENTemporaryExposureKey]
    /// `healthAuthorityID`.
    public var healthAuthorityID: String
    /// `symptomOnsetInterval`, left out when `nil`.
    public var symptomOnsetInterval: UInt32?
    /// `verificationPayload`, left out when empty.
    public var verificationPayload: String
    /// `hmackey` (base64), left out when empty.
    public var hmacKey: String
    /// `revisionToken`, left out when empty.
    public var revisionToken: String
    /// `padding`, left out when `nil`.
    public var padding: String?

    /// Creates a body.
    public init(
        keys: [ENTemporaryExposureKey], healthAuthorityID: String, symptomOnsetInterval: UInt32? = nil,
        verificationPayload: String = "", hmacKey: String = "", revisionToken: String = "", padding: String? = nil
    ) {
        self.hmacKey = hmacKey
        self.keys = keys
        self.healthAuthorityID = healthAuthorityID
        self.symptomOnsetInterval = symptomOnsetInterval
        self.verificationPayload = verificationPayload
        self.revisionToken = revisionToken
        self.padding = padding
    }

    /// The body's JSON text.
    public var json: String {
        let keys = keys.map { key in
            #"{"key":"\#(key.keyData.base64EncodedString())","rollingStartNumber":\#(key.rollingStartNumber),"#
                + #""rollingPeriod":\#(key.rollingPeriod),"transmissionRisk":\#(key.transmissionRiskLevel)}"#
        }
        var fields = [
            #""temporaryExposureKeys":[\#(keys.joined(separator: ","))]"#,
            #""healthAuthorityID":"\#(healthAuthorityID)""#,
        ]
        if let symptomOnsetInterval { fields.append(#""symptomOnsetInterval":\#(symptomOnsetInterval)"#) }
        if !verificationPayload.isEmpty { fields.append(#""verificationPayload":"\#(verificationPayload)""#) }
        if !hmacKey.isEmpty { fields.append(#""hmackey":"\#(hmacKey)""#) }
        if !revisionToken.isEmpty { fields.append(#""revisionToken":"\#(revisionToken)""#) }
        if let padding { fields.append(#""padding":"\#(padding)""#) }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
