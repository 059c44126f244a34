public import Foundation

/// A request for a code (Google's `IssueCodeRequest`, `POST /api/issue` on the admin API).
///
/// Field names as Google's: `padding`, `symptomDate`, `testDate` (`YYYY-MM-DD`), `testType`, `tzOffset` (minutes),
/// `phone`, `smsTemplateLabel`, `uuid`, `externalIssuerID`, `onlyGenerateSMS`. This server sends no SMS: a
/// request with a `phone` or `onlyGenerateSMS` is refused.
public struct ENIssueCodeRequest: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends 1–2 KiB of random bytes. Ignored when received.
    public var padding: Data?
    /// The symptom onset date, `YYYY-MM-DD`, or empty.
    public var symptomDate: String
    /// The test date, `YYYY-MM-DD`, or empty.
    public var testDate: String
    /// `confirmed`, `likely`, `negative` (or `user-report`), any case.
    public var testType: String
    /// The user's time-zone offset in minutes (only its sign matters: negative loosens the lower date bound).
    public var tzOffset: Float
    /// A phone number to send the code to (not supported here).
    public var phone: String
    /// The SMS template (not supported here).
    public var smsTemplateLabel: String
    /// A handle to track the code; generated when empty.
    public var uuid: String
    /// The caller's own identifier of whoever asked, stored as is (at most 255 characters).
    public var externalIssuerID: String
    /// Whether to return the SMS instead of sending it (not supported here).
    public var onlyGenerateSMS: Bool

    /// Creates a request.
    public init(
        testType: String, symptomDate: String = "", testDate: String = "", tzOffset: Float = 0, uuid: String = "",
        externalIssuerID: String = "", phone: String = "", smsTemplateLabel: String = "",
        onlyGenerateSMS: Bool = false, padding: Data? = nil
    ) {
        self.padding = padding
        self.symptomDate = symptomDate
        self.testDate = testDate
        self.testType = testType
        self.tzOffset = tzOffset
        self.phone = phone
        self.smsTemplateLabel = smsTemplateLabel
        self.uuid = uuid
        self.externalIssuerID = externalIssuerID
        self.onlyGenerateSMS = onlyGenerateSMS
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case symptomDate, testDate, testType, tzOffset, phone, smsTemplateLabel, uuid, externalIssuerID
        case onlyGenerateSMS
    }

    /// Decodes Google's JSON; absent fields take Go's zero values, `padding` is ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        symptomDate = try container.decodeIfPresent(String.self, forKey: .symptomDate) ?? ""
        testDate = try container.decodeIfPresent(String.self, forKey: .testDate) ?? ""
        testType = try container.decodeIfPresent(String.self, forKey: .testType) ?? ""
        tzOffset = try container.decodeIfPresent(Float.self, forKey: .tzOffset) ?? 0
        phone = try container.decodeIfPresent(String.self, forKey: .phone) ?? ""
        smsTemplateLabel = try container.decodeIfPresent(String.self, forKey: .smsTemplateLabel) ?? ""
        uuid = try container.decodeIfPresent(String.self, forKey: .uuid) ?? ""
        externalIssuerID = try container.decodeIfPresent(String.self, forKey: .externalIssuerID) ?? ""
        onlyGenerateSMS = try container.decodeIfPresent(Bool.self, forKey: .onlyGenerateSMS) ?? false
    }

    /// Encodes as Google's client does: every field, in Go's order.
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        [
            .init("padding", ENVerificationPadding.value(padding)), .init("symptomDate", .string(symptomDate)),
            .init("testDate", .string(testDate)), .init("testType", .string(testType)),
            .init("tzOffset", .float(tzOffset)), .init("phone", .string(phone)),
            .init("smsTemplateLabel", .string(smsTemplateLabel)), .init("uuid", .string(uuid)),
            .init("externalIssuerID", .string(externalIssuerID)), .init("onlyGenerateSMS", .bool(onlyGenerateSMS)),
        ]
    }
}

/// The answer to an ``ENIssueCodeRequest`` (Google's `IssueCodeResponse`).
///
/// `padding`, `uuid`, `code`, `expiresAt` (RFC 1123, UTC) and `expiresAtTimestamp` (Unix seconds) are always
/// written; `longExpiresAt`, `longExpiresAtTimestamp`, `error`, `errorCode` only when not empty. This server adds
/// `longCode` (omitted when empty): Google sends the long code only by SMS, which this server does not send.
public struct ENIssueCodeResponse: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends random bytes.
    public var padding: Data?
    /// The code's handle.
    public var uuid: String
    /// The short code.
    public var code: String
    /// The long code (this server's addition), or empty.
    public var longCode: String
    /// When the short code expires, RFC 1123 (`Mon, 02 Jan 2006 15:04:05 UTC`).
    public var expiresAt: String
    /// When the short code expires, Unix seconds.
    public var expiresAtTimestamp: Int64
    /// When the long code expires, RFC 1123, or empty.
    public var longExpiresAt: String
    /// When the long code expires, Unix seconds, or 0.
    public var longExpiresAtTimestamp: Int64
    /// The error message of a failed entry of a batch, or empty.
    public var error: String
    /// The error code of a failed entry of a batch, or empty.
    public var errorCode: String

    /// Creates a response.
    public init(
        uuid: String = "", code: String = "", longCode: String = "", expiresAt: String = "",
        expiresAtTimestamp: Int64 = 0, longExpiresAt: String = "", longExpiresAtTimestamp: Int64 = 0,
        error: String = "", errorCode: String = "", padding: Data? = nil
    ) {
        self.padding = padding
        self.uuid = uuid
        self.code = code
        self.longCode = longCode
        self.expiresAt = expiresAt
        self.expiresAtTimestamp = expiresAtTimestamp
        self.longExpiresAt = longExpiresAt
        self.longExpiresAtTimestamp = longExpiresAtTimestamp
        self.error = error
        self.errorCode = errorCode
    }

    enum CodingKeys: String, CodingKey {
        case uuid, code, longCode, expiresAt, expiresAtTimestamp, longExpiresAt, longExpiresAtTimestamp, error
        case errorCode
    }

    /// Decodes Google's JSON; absent fields are empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        uuid = try container.decodeIfPresent(String.self, forKey: .uuid) ?? ""
        code = try container.decodeIfPresent(String.self, forKey: .code) ?? ""
        longCode = try container.decodeIfPresent(String.self, forKey: .longCode) ?? ""
        expiresAt = try container.decodeIfPresent(String.self, forKey: .expiresAt) ?? ""
        expiresAtTimestamp = try container.decodeIfPresent(Int64.self, forKey: .expiresAtTimestamp) ?? 0
        longExpiresAt = try container.decodeIfPresent(String.self, forKey: .longExpiresAt) ?? ""
        longExpiresAtTimestamp = try container.decodeIfPresent(Int64.self, forKey: .longExpiresAtTimestamp) ?? 0
        error = try container.decodeIfPresent(String.self, forKey: .error) ?? ""
        errorCode = try container.decodeIfPresent(String.self, forKey: .errorCode) ?? ""
    }

    /// Encodes as Google's server does.
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        var members: [GoJSONValue.Member] = [
            .init("padding", ENVerificationPadding.value(padding)), .init("uuid", .string(uuid)),
            .init("code", .string(code)),
        ]
        if !longCode.isEmpty { members.append(.init("longCode", .string(longCode))) }
        members.append(.init("expiresAt", .string(expiresAt)))
        members.append(.init("expiresAtTimestamp", .integer(expiresAtTimestamp)))
        if !longExpiresAt.isEmpty { members.append(.init("longExpiresAt", .string(longExpiresAt))) }
        if longExpiresAtTimestamp != 0 {
            members.append(.init("longExpiresAtTimestamp", .integer(longExpiresAtTimestamp)))
        }
        if !error.isEmpty { members.append(.init("error", .string(error))) }
        if !errorCode.isEmpty { members.append(.init("errorCode", .string(errorCode))) }
        return members
    }
}
