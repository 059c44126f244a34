public import Foundation

/// What an HTTP layer sends back for a publish request: the status, the headers and the JSON body.
public struct ENPublishHTTPResponse: Hashable, Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The headers, by lower-case name: `content-type: application/json`, and for every v1 answer (not for
    /// chaff) `x-api-version: v1`.
    public var headers: [String: String]
    /// The response.
    public var response: ENPublishResponse

    /// Creates a response.
    public init(status: Int, headers: [String: String], response: ENPublishResponse) {
        self.status = status
        self.headers = headers
        self.response = response
    }

    /// The body: ``response`` as Google's server writes it.
    public var body: Data { response.jsonData() }
}
