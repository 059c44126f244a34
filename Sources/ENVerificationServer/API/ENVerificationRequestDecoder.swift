internal import ENKeyServer
public import Foundation

/// A request body of Google's verification API.
public protocol ENVerificationRequest: Decodable, Sendable {
    /// The JSON field names (besides `padding`), as Go's struct tags spell them.
    static var fieldNames: [String] { get }
    /// For a field holding an array of objects: the objects' field names.
    static var nestedFieldNames: [String: [String]] { get }
}

extension ENVerificationRequest {
    /// No nested objects.
    public static var nestedFieldNames: [String: [String]] { [:] }
}

extension ENIssueCodeRequest: ENVerificationRequest {
    /// Google's names.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.rawValue) }
}

extension ENBatchIssueCodeRequest: ENVerificationRequest {
    /// Google's names.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.rawValue) }
    /// `codes` holds issue requests.
    public static var nestedFieldNames: [String: [String]] { ["codes": ENIssueCodeRequest.fieldNames] }
}

extension ENCodeStatusRequest: ENVerificationRequest {
    /// Google's names.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.rawValue) }
}

extension ENVerifyCodeRequest: ENVerificationRequest {
    /// Google's names.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.rawValue) }
}

extension ENVerificationCertificateRequest: ENVerificationRequest {
    /// Google's names.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.rawValue) }
}

/// Reads a request body as Google's `controller.BindJSON` does: the content type must start with
/// `application/json`; at most ``maximumBodyByteCount`` bytes; one JSON object; field names matched as Go matches
/// them (exactly, else ignoring case); unknown fields refused; `padding` ignored whatever its value.
///
/// The messages are Google's, except that syntax and type errors do not give a byte offset.
public enum ENVerificationRequestDecoder {
    /// Google's cap on a request body: 64,000 bytes (`maxBodyBytes`).
    public static let maximumBodyByteCount = 64_000

    /// Decodes `body`, or says what is wrong with it (the handlers answer that with 400 and their own code).
    ///
    /// - Parameters:
    ///   - type: the request type.
    ///   - contentType: the request's `Content-Type` header, `nil` when absent.
    ///   - body: the body.
    ///   - bodyExceedsLimit: whether the HTTP layer cut the body at ``maximumBodyByteCount`` bytes.
    public static func decode<Request: ENVerificationRequest>(
        _ type: Request.Type, contentType: String?, body: Data, bodyExceedsLimit: Bool = false
    ) -> Result<Request, BindError> {
        guard let contentType, contentType.utf8.count >= 16, contentType.hasPrefix("application/json") else {
            return .failure(BindError("content-type is not application/json"))
        }
        guard !bodyExceedsLimit, body.count <= maximumBodyByteCount else {
            return .failure(BindError("http: request body too large"))
        }
        guard body.contains(where: { !Self.isSpace($0) }) else { return .failure(BindError("body must not be empty")) }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            return .failure(BindError("malformed json"))
        }
        if parsed is NSNull { return decodeCanonical(type, [:]) }
        guard let object = parsed as? [String: Any] else {
            return .failure(BindError("invalid value \"\" (not an object)"))
        }
        // The members in the body's order (JSONSerialization's dictionary has none), so that the unknown field named
        // is the first one, as Go's decoder names it.
        var ordered: GoJSON.Value?
        if case .value(let value, _) = GoJSON.firstValue(in: Array(body)) { ordered = value }
        switch canonicalize(object, names: Request.fieldNames, nested: Request.nestedFieldNames, ordered: ordered) {
        case .success(let canonical): return decodeCanonical(type, canonical)
        case .failure(let error): return .failure(error)
        }
    }

    /// Why a body was refused: the message Google's `BindJSON` returns.
    public struct BindError: Error, Hashable, Sendable {
        /// The message.
        public var message: String
        init(_ message: String) { self.message = message }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private static func decodeCanonical<Request: ENVerificationRequest>(
        _ type: Request.Type, _ object: [String: Any]
    ) -> Result<Request, BindError> {
        do {
            let data = try JSONSerialization.data(withJSONObject: object)
            return .success(try JSONDecoder().decode(type, from: data))
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context)
        {
            let field = context.codingPath.map(\.stringValue).filter { Int($0) == nil }.joined(separator: ".")
            return .failure(BindError("invalid value \"\(field)\""))
        } catch {
            return .failure(BindError("failed to decode json: \(error)"))
        }
    }

    /// Renames fields to their Go names (exact match first, then ignoring case), drops `padding`, refuses unknown
    /// fields (Go's message: `unknown field "\"name\""`, the quoted name quoted again), looking at the fields in
    /// `ordered`'s order (the same object as Go reads it) so that the first unknown one is named.
    private static func canonicalize(
        _ object: [String: Any], names: [String], nested: [String: [String]], ordered: GoJSON.Value?
    ) -> Result<[String: Any], BindError> {
        let all = names + ["padding"]
        var canonical: [String: Any] = [:]
        var members: [(key: String, value: GoJSON.Value)] = []
        if case .object(let entries)? = ordered { members = entries }
        var seen = Set<String>()
        for key in members.map(\.key) + object.keys.sorted() where seen.insert(key).inserted {
            guard let value = object[key] else { continue }
            guard let name = all.first(where: { $0 == key }) ?? all.first(where: { Self.equalFold($0, key) }) else {
                let quoted = GoJSONValue.quoted(key)
                return .failure(BindError("unknown field \(GoJSONValue.quoted(quoted))"))
            }
            if name == "padding" { continue }
            if let inner = nested[name], let elements = value as? [Any] {
                var converted: [Any] = []
                var orderedElements: [GoJSON.Value] = []
                if case .array(let items)? = members.last(where: { $0.key == key })?.value { orderedElements = items }
                for (index, element) in elements.enumerated() {
                    guard let elementObject = element as? [String: Any] else {
                        converted.append(element)
                        continue
                    }
                    let orderedElement = orderedElements.indices.contains(index) ? orderedElements[index] : nil
                    switch canonicalize(elementObject, names: inner, nested: [:], ordered: orderedElement) {
                    case .success(let object): converted.append(object)
                    case .failure(let error): return .failure(error)
                    }
                }
                canonical[name] = converted
            } else {
                canonical[name] = value
            }
        }
        return .success(canonical)
    }

    /// Go's `strings.EqualFold` for the ASCII names of the API.
    private static func equalFold(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }
}
