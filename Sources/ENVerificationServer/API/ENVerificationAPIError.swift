public import Foundation

/// An error answer of Google's verification API: its HTTP status and its body, `ErrorReturn`
/// (`{"error":…,"errorCode":…,"error_code":…}`, none omitted, `error_code` a copy of `errorCode` for old clients).
public struct ENVerificationAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The English message, `error`.
    public var message: String
    /// The code, `errorCode`; `nil` where Google sends `""`.
    public var code: ENVerificationErrorCode?

    /// Creates an error answer.
    public init(status: Int, message: String, code: ENVerificationErrorCode? = nil) {
        self.status = status
        self.message = message
        self.code = code
    }

    /// "STATUS code: message".
    public var description: String { "\(status) \(code?.rawValue ?? "(no code)"): \(message)" }

    /// The body, exactly as Google's server writes it.
    public var jsonData: Data { body.goJSONData }

    var body: Body { Body(error: message, errorCode: code?.rawValue ?? "") }

    /// `ErrorReturn`.
    struct Body: GoJSONEncodable {
        var error: String
        var errorCode: String
        var goJSONMembers: [GoJSONValue.Member] {
            [
                .init("error", .string(error)), .init("errorCode", .string(errorCode)),
                .init("error_code", .string(errorCode)),
            ]
        }
        func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }
    }

    // MARK: Google's fixed answers

    /// 401 `{"error":"unauthorized",…}`: no API key, an unknown one, or one of the wrong type
    /// (`controller.Unauthorized`).
    public static let unauthorized = Self(status: 401, message: "unauthorized")
    /// 400 `{"error":"bad request",…}` (`controller.BadRequest`).
    public static let badRequest = Self(status: 400, message: "bad request")
    /// 500 `internal_server_error` (`api.InternalError()`).
    public static let internalError = Self(status: 500, message: "internal error", code: .internalServerError)
}
