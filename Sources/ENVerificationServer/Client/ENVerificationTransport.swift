public import Foundation

/// How an ``ENVerificationClient`` reaches a verification server: one `POST` of a JSON body to a route, with the
/// `X-API-Key` header (and `X-Chaff` for chaff), answered with a status and a body.
///
/// ``ENVerificationService`` is a transport (the server in the same process); an HTTP transport posts to a live
/// server.
public protocol ENVerificationTransport: Sendable {
    /// Posts `body` (`Content-Type: application/json`) to `endpoint` with `apiKey`.
    func post(_ endpoint: ENVerificationEndpoint, apiKey: String, body: Data, chaff: Bool) async throws
        -> ENVerificationHTTPResponse
}

extension ENVerificationService: ENVerificationTransport {
    /// Answers the request in process, as over HTTP.
    public func post(_ endpoint: ENVerificationEndpoint, apiKey: String, body: Data, chaff: Bool) async
        -> ENVerificationHTTPResponse
    {
        await respond(
            to: endpoint, apiKey: apiKey, contentType: ENVerificationHTTPResponse.contentType, body: body, chaff: chaff)
    }
}
