public import ENCore
public import Foundation

extension ENPublishRequest {
    /// Decodes a request body exactly as Google's server does (Go's `encoding/json` with unknown fields
    /// refused, `internal/jsonutil/unmarshal.go`).
    ///
    /// - Object keys match fields exactly first, then case-insensitively (`hmackey`, `HMACKEY`), Go's way; a
    ///   key given twice takes its last value.
    /// - An unknown field, a value of the wrong JSON type (a string for an `Int32`, `1.5` or `1e2` for an
    ///   integer, an integer out of range), an empty body, a body that is not JSON, and a second JSON value
    ///   after the first are refused. `null` leaves a field at its default, as in Go.
    /// - `padding` is read and ignored; `transmissionRisk` is optional (0).
    ///
    /// - Throws: `ENError.Code.badFormat`, `context.field` naming the field when one is at fault.
    public init(json: Data) throws(ENError) {
        switch Self.decode(Array(json), truncated: false) {
        case .success(let request): self = request
        case .failure(let failure): throw failure.error
        }
    }

    /// Decodes the first `bytes` of a body; `truncated` when the body went on beyond them (the reader's limit).
    /// ``ENPublishHandler`` reads every body with it; package-visible for the fuzz targets.
    package static func decode(_ bytes: [UInt8], truncated: Bool) -> Result<ENPublishRequest, PublishDecodingFailure> {
        let value: GoJSON.Value
        switch GoJSON.firstValue(in: bytes) {
        case .empty: return .failure(truncated ? .tooLarge : .empty)
        case .incomplete: return .failure(truncated ? .tooLarge : .truncated)
        case .syntaxError(let offset, let reason): return .failure(.malformed(offset: offset, reason: reason))
        case .value(let parsed, let end):
            // Go's `Decoder.More` peeks past the value; a read past the limit fails the peek, which is "no more".
            if GoJSON.hasMore(bytes, after: end) { return .failure(.moreThanOneValue) }
            value = parsed
        }
        var request = ENPublishRequest()
        var decoder = FieldDecoder()
        switch value {
        case .null: break
        case .object(let entries):
            for (key, value) in entries {
                decoder.path = key
                switch Fields.match(key, in: Fields.request) {
                case "temporaryExposureKeys":
                    switch value {
                    case .null: request.temporaryExposureKeys = []
                    case .array(let items):
                        request.temporaryExposureKeys = items.enumerated().map { index, item in
                            decoder.exposureKey(item, path: "temporaryExposureKeys[\(index)]")
                        }
                    default: decoder.wrongType(value, expected: "[]v1.ExposureKey")
                    }
                case "healthAuthorityID": decoder.string(value, into: &request.healthAuthorityID)
                case "verificationPayload": decoder.string(value, into: &request.verificationPayload)
                case "hmacKey": decoder.string(value, into: &request.hmacKey)
                case "symptomOnsetInterval": decoder.int32(value, into: &request.symptomOnsetInterval)
                case "traveler": decoder.bool(value, into: &request.traveler)
                case "revisionToken": decoder.string(value, into: &request.revisionToken)
                case "padding": decoder.string(value, into: &request.padding)
                default: decoder.fail(.unknownField(key))
                }
            }
        default:
            decoder.path = ""
            decoder.wrongType(value, expected: "v1.Publish")
        }
        if let failure = decoder.failure { return .failure(failure) }
        return .success(request)
    }
}

/// Why a publish body was refused, with the status Google's server answers.
package enum PublishDecodingFailure: Error, Equatable {
    /// Nothing but whitespace (400, "body must not be empty").
    case empty
    /// The body ends inside the value (400, "malformed json").
    case truncated
    /// The body passes the size limit before its value ends (413).
    case tooLarge
    /// Not JSON (400, "malformed json at position N").
    case malformed(offset: Int, reason: String)
    /// A value of the wrong type for its field (400).
    case wrongType(field: String, found: String, expected: String)
    /// A field the request does not have (400).
    case unknownField(String)
    /// More than one JSON value (400).
    case moreThanOneValue

    /// Google's HTTP status for the failure.
    package var status: Int { self == .tooLarge ? 413 : 400 }

    /// Google's message (`internal/jsonutil/unmarshal.go`).
    package var message: String {
        switch self {
        case .empty: "body must not be empty"
        case .truncated: "malformed json"
        case .tooLarge: "http: request body too large"
        case .malformed(let offset, _): "malformed json at position \(offset + 1)"
        case .wrongType(let field, let found, _): "invalid value \"\(field)\" (\(found))"
        case .unknownField(let name): "unknown field \"\(name)\""
        case .moreThanOneValue: "body must contain only one JSON object"
        }
    }

    /// The failure as an `ENError`.
    package var error: ENError {
        switch self {
        case .wrongType(let field, let found, let expected):
            .badFormat(
                "publish request: \(field) must be \(expected), found \(found)", context: .init(field: field))
        case .unknownField(let name):
            .badFormat("publish request: unknown field \"\(name)\"", context: .init(field: name))
        case .malformed(let offset, let reason):
            .badFormat("publish request: not JSON at byte \(offset): \(reason)")
        default: .badFormat("publish request: \(message)")
        }
    }
}

/// The JSON names of Google's request fields and Go's matching of object keys to them.
enum Fields {
    static let request = [
        "temporaryExposureKeys", "healthAuthorityID", "verificationPayload", "hmacKey", "symptomOnsetInterval",
        "traveler", "revisionToken", "padding",
    ]
    static let exposureKey = ["key", "rollingStartNumber", "rollingPeriod", "transmissionRisk"]

    /// The field `key` names: the exact name first, then a case-insensitive match; `nil` for none.
    static func match(_ key: String, in fields: [String]) -> String? {
        if fields.contains(key) { return key }
        let folded = fold(key)
        return fields.first { fold($0) == folded }
    }

    /// Go's case folding of field names: ASCII letters, plus the two non-ASCII letters that every Go version
    /// folds to an ASCII one, the Kelvin sign (to `K`) and the long s (to `S`).
    static func fold(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x61...0x7A: Unicode.Scalar(scalar.value - 0x20)!
            case 0x212A: "K"
            case 0x17F: "S"
            default: scalar
            }
        }
    }
}

/// Go's `encoding/json` conversions into the request's field types; the first failure is kept, as Go keeps it.
private struct FieldDecoder {
    var failure: PublishDecodingFailure?
    var path = ""

    mutating func fail(_ failure: PublishDecodingFailure) {
        if self.failure == nil { self.failure = failure }
    }

    mutating func wrongType(_ value: GoJSON.Value, expected: String) {
        fail(.wrongType(field: path, found: value.kind, expected: expected))
    }

    mutating func string(_ value: GoJSON.Value, into field: inout String) {
        switch value {
        case .null: break
        case .string(let text): field = text
        default: wrongType(value, expected: "string")
        }
    }

    mutating func bool(_ value: GoJSON.Value, into field: inout Bool) {
        switch value {
        case .null: break
        case .bool(let flag): field = flag
        default: wrongType(value, expected: "bool")
        }
    }

    mutating func int32(_ value: GoJSON.Value, into field: inout Int32) {
        var wide = Int(field)
        integer(value, into: &wide, range: Int(Int32.min)...Int(Int32.max), type: "int32")
        if let narrow = Int32(exactly: wide) { field = narrow }
    }

    /// Go's `strconv.ParseInt` of the literal: digits with an optional `-`; no fraction, no exponent.
    mutating func integer(_ value: GoJSON.Value, into field: inout Int, range: ClosedRange<Int>, type: String) {
        switch value {
        case .null: break
        case .number(let literal):
            guard let parsed = Int(literal), range.contains(parsed) else {
                wrongType(value, expected: type)
                return
            }
            field = parsed
        default: wrongType(value, expected: type)
        }
    }

    mutating func exposureKey(_ value: GoJSON.Value, path keyPath: String) -> ENPublishExposureKey {
        var key = ENPublishExposureKey()
        switch value {
        case .null: break
        case .object(let entries):
            for (name, value) in entries {
                path = "\(keyPath).\(name)"
                switch Fields.match(name, in: Fields.exposureKey) {
                case "key": string(value, into: &key.key)
                case "rollingStartNumber": int32(value, into: &key.rollingStartNumber)
                case "rollingPeriod": int32(value, into: &key.rollingPeriod)
                case "transmissionRisk":
                    integer(value, into: &key.transmissionRisk, range: Int(Int64.min)...Int(Int64.max), type: "int")
                default: fail(.unknownField(name))
                }
            }
        default:
            path = keyPath
            wrongType(value, expected: "v1.ExposureKey")
        }
        return key
    }
}
