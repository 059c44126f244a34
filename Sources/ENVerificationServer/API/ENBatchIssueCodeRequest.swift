public import Foundation

/// A request for up to 10 codes at once (Google's `BatchIssueCodeRequest`, `POST /api/batch-issue`).
public struct ENBatchIssueCodeRequest: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends random bytes. Ignored when received.
    public var padding: Data?
    /// The requests, at most 10.
    public var codes: [ENIssueCodeRequest]

    /// Creates a request.
    public init(codes: [ENIssueCodeRequest], padding: Data? = nil) {
        self.codes = codes
        self.padding = padding
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case codes }

    /// Decodes Google's JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        codes = try container.decodeIfPresent([ENIssueCodeRequest].self, forKey: .codes) ?? []
    }

    /// Encodes as Google's client does.
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        [
            .init("padding", ENVerificationPadding.value(padding)),
            .init("codes", .array(codes.map { .object($0.goJSONMembers) })),
        ]
    }
}

/// The answer to an ``ENBatchIssueCodeRequest`` (Google's `BatchIssueCodeResponse`): one entry per request, in
/// order, each entry's padding empty; `error` and `errorCode` summarize the failures.
public struct ENBatchIssueCodeResponse: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends random bytes.
    public var padding: Data?
    /// One entry per request.
    public var codes: [ENIssueCodeResponse]
    /// How many failed, or empty.
    public var error: String
    /// The code of the first failure, or empty.
    public var errorCode: String

    /// Creates a response.
    public init(codes: [ENIssueCodeResponse] = [], error: String = "", errorCode: String = "", padding: Data? = nil) {
        self.codes = codes
        self.error = error
        self.errorCode = errorCode
        self.padding = padding
    }

    enum CodingKeys: String, CodingKey { case codes, error, errorCode }

    /// Decodes Google's JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        codes = try container.decodeIfPresent([ENIssueCodeResponse].self, forKey: .codes) ?? []
        error = try container.decodeIfPresent(String.self, forKey: .error) ?? ""
        errorCode = try container.decodeIfPresent(String.self, forKey: .errorCode) ?? ""
    }

    /// Encodes as Google's server does.
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        var members: [GoJSONValue.Member] = [.init("padding", ENVerificationPadding.value(padding))]
        if !codes.isEmpty { members.append(.init("codes", .array(codes.map { .object($0.goJSONMembers) }))) }
        if !error.isEmpty { members.append(.init("error", .string(error))) }
        if !errorCode.isEmpty { members.append(.init("errorCode", .string(errorCode))) }
        return members
    }
}
