public import Foundation

/// An issued code as stored (Google's `VerificationCode`): only the HMACs of the short and the long code, each
/// with its own expiry.
public struct ENVerificationCodeRecord: Hashable, Sendable {
    /// The code's handle (a lower-case UUID unless the issuer gave its own).
    public var uuid: String
    /// The HMAC of the short code.
    public var codeHMAC: String
    /// The HMAC of the long code.
    public var longCodeHMAC: String
    /// Whether it was exchanged for a token.
    public var claimed: Bool
    /// Its test type.
    public var testType: ENVerificationTestType
    /// The symptom onset date.
    public var symptomDate: ENVerificationDate?
    /// The test date.
    public var testDate: ENVerificationDate?
    /// When the short code expires (it is expired from this instant on).
    public var expiresAt: Date
    /// When the long code expires.
    public var longExpiresAt: Date
    /// The API key that issued it.
    public var issuingAPIKeyID: Int64?
    /// The issuer's own identifier of whoever asked (at most 255 characters).
    public var externalIssuerID: String
    /// When it was issued.
    public var createdAt: Date

    /// Creates a record.
    public init(
        uuid: String, codeHMAC: String, longCodeHMAC: String, claimed: Bool = false,
        testType: ENVerificationTestType, symptomDate: ENVerificationDate? = nil, testDate: ENVerificationDate? = nil,
        expiresAt: Date, longExpiresAt: Date, issuingAPIKeyID: Int64? = nil, externalIssuerID: String = "",
        createdAt: Date
    ) {
        self.uuid = uuid
        self.codeHMAC = codeHMAC
        self.longCodeHMAC = longCodeHMAC
        self.claimed = claimed
        self.testType = testType
        self.symptomDate = symptomDate
        self.testDate = testDate
        self.expiresAt = expiresAt
        self.longExpiresAt = longExpiresAt
        self.issuingAPIKeyID = issuingAPIKeyID
        self.externalIssuerID = externalIssuerID
        self.createdAt = createdAt
    }

    /// The code's subject, which its token carries.
    public var subject: ENVerificationSubject {
        ENVerificationSubject(testType: testType, symptomDate: symptomDate, testDate: testDate)
    }

    /// Whether both codes have expired by `now` (Google's `IsExpired`).
    public func isExpired(at now: Date) -> Bool { expiresAt < now && longExpiresAt < now }
}
