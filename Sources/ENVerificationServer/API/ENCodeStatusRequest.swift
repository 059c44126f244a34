public import Foundation

/// A request naming an issued code by its UUID: Google's `CheckCodeStatusRequest` (`POST /api/checkcodestatus`)
/// and `ExpireCodeRequest` (`POST /api/expirecode`), which have the same fields.
public struct ENCodeStatusRequest: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends random bytes. Ignored when received.
    public var padding: Data?
    /// The code's UUID.
    public var uuid: String

    /// Creates a request.
    public init(uuid: String, padding: Data? = nil) {
        self.uuid = uuid
        self.padding = padding
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case uuid }

    /// Decodes Google's JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        uuid = try container.decodeIfPresent(String.self, forKey: .uuid) ?? ""
    }

    /// Encodes as Google's client does.
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        [.init("padding", ENVerificationPadding.value(padding)), .init("uuid", .string(uuid))]
    }
}

/// The answer to a check-status or expire request: Google's `CheckCodeStatusResponse` (with `claimed`) and
/// `ExpireCodeResponse` (without it).
public struct ENCodeStatusResponse: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends random bytes.
    public var padding: Data?
    /// Whether the code was exchanged for a token; `nil` for an expire response, which has no such field.
    public var claimed: Bool?
    /// When the short code expires, Unix seconds.
    public var expiresAtTimestamp: Int64
    /// When the long code expires, Unix seconds (omitted when 0).
    public var longExpiresAtTimestamp: Int64

    /// Creates a response.
    public init(claimed: Bool?, expiresAtTimestamp: Int64, longExpiresAtTimestamp: Int64, padding: Data? = nil) {
        self.claimed = claimed
        self.expiresAtTimestamp = expiresAtTimestamp
        self.longExpiresAtTimestamp = longExpiresAtTimestamp
        self.padding = padding
    }

    enum CodingKeys: String, CodingKey { case claimed, expiresAtTimestamp, longExpiresAtTimestamp }

    /// Decodes Google's JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        claimed = try container.decodeIfPresent(Bool.self, forKey: .claimed)
        expiresAtTimestamp = try container.decodeIfPresent(Int64.self, forKey: .expiresAtTimestamp) ?? 0
        longExpiresAtTimestamp = try container.decodeIfPresent(Int64.self, forKey: .longExpiresAtTimestamp) ?? 0
    }

    /// Encodes as Google's server does.
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        var members: [GoJSONValue.Member] = [.init("padding", ENVerificationPadding.value(padding))]
        if let claimed { members.append(.init("claimed", .bool(claimed))) }
        members.append(.init("expiresAtTimestamp", .integer(expiresAtTimestamp)))
        if longExpiresAtTimestamp != 0 {
            members.append(.init("longExpiresAtTimestamp", .integer(longExpiresAtTimestamp)))
        }
        return members
    }
}
