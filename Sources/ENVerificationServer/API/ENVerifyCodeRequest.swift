public import Foundation

/// A device's request to exchange a code for a token (Google's `VerifyCodeRequest`, `POST /api/verify`).
public struct ENVerifyCodeRequest: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends random bytes. Ignored when received.
    public var padding: Data?
    /// The short or the long code, `code`.
    public var code: String
    /// The test types the app can handle, `accept` (see ``ENVerificationAcceptedTypes``); empty accepts all.
    public var accept: [String]
    /// A user report's nonce, base64 (`nonce`, omitted when empty).
    public var nonce: String

    /// Creates a request.
    public init(code: String, accept: [String] = [], nonce: String = "", padding: Data? = nil) {
        self.code = code
        self.accept = accept
        self.nonce = nonce
        self.padding = padding
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case code, accept, nonce }

    /// Decodes Google's JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        code = try container.decodeIfPresent(String.self, forKey: .code) ?? ""
        accept = try container.decodeIfPresent([String].self, forKey: .accept) ?? []
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce) ?? ""
    }

    /// Encodes as Google's client does (`accept` `null` when empty, as Go writes a nil slice).
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        var members: [GoJSONValue.Member] = [
            .init("padding", ENVerificationPadding.value(padding)), .init("code", .string(code)),
            .init("accept", accept.isEmpty ? .null : .array(accept.map { .string($0) })),
        ]
        if !nonce.isEmpty { members.append(.init("nonce", .string(nonce))) }
        return members
    }
}

/// The answer to an ``ENVerifyCodeRequest`` (Google's `VerifyCodeResponse`): `padding`, then `testtype` (lower
/// case, as Google spells it), `symptomDate`, `testDate`, `token`, `error`, `errorCode`, each omitted when empty.
public struct ENVerifyCodeResponse: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends random bytes.
    public var padding: Data?
    /// The code's test type.
    public var testType: String
    /// The symptom onset date, `YYYY-MM-DD`, or empty.
    public var symptomDate: String
    /// The test date, `YYYY-MM-DD`, or empty.
    public var testDate: String
    /// The verification token (a JWT).
    public var token: String
    /// An error message, or empty.
    public var error: String
    /// An error code, or empty.
    public var errorCode: String

    /// Creates a response.
    public init(
        testType: String = "", symptomDate: String = "", testDate: String = "", token: String = "",
        error: String = "", errorCode: String = "", padding: Data? = nil
    ) {
        self.testType = testType
        self.symptomDate = symptomDate
        self.testDate = testDate
        self.token = token
        self.error = error
        self.errorCode = errorCode
        self.padding = padding
    }

    enum CodingKeys: String, CodingKey {
        case testType = "testtype"
        case symptomDate, testDate, token, error, errorCode
    }

    /// Decodes Google's JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        testType = try container.decodeIfPresent(String.self, forKey: .testType) ?? ""
        symptomDate = try container.decodeIfPresent(String.self, forKey: .symptomDate) ?? ""
        testDate = try container.decodeIfPresent(String.self, forKey: .testDate) ?? ""
        token = try container.decodeIfPresent(String.self, forKey: .token) ?? ""
        error = try container.decodeIfPresent(String.self, forKey: .error) ?? ""
        errorCode = try container.decodeIfPresent(String.self, forKey: .errorCode) ?? ""
    }

    /// Encodes as Google's server does.
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        var members: [GoJSONValue.Member] = [.init("padding", ENVerificationPadding.value(padding))]
        for (name, value) in [
            ("testtype", testType), ("symptomDate", symptomDate), ("testDate", testDate), ("token", token),
            ("error", error), ("errorCode", errorCode),
        ] where !value.isEmpty {
            members.append(.init(name, .string(value)))
        }
        return members
    }
}
