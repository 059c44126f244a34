internal import ENBoundedFetch
internal import ENCore
public import Foundation

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// An ``ENVerificationTransport`` to a live verification server (`enverify`, or Google's): each post is one HTTP
/// `POST` of `baseURL` + the route with `Content-Type: application/json`, `Accept: application/json`,
/// `X-API-Key` and, for chaff, `X-Chaff: 1`; the answer's status and body come back whatever the status. The
/// body is read up to ``maximumResponseBytes`` and the transfer stopped there.
///
/// ```swift
/// let transport = ENVerificationHTTPTransport(baseURL: URL(string: "https://verify.example.org")!)
/// let client = ENVerificationClient(apiKey: deviceKey, transport: transport)
/// ```
public struct ENVerificationHTTPTransport: ENVerificationTransport {
    /// The server's address; a route's path (`/api/verify`) is appended.
    public var baseURL: URL
    /// The most bytes of a response body read (64 KiB: Google's answers are far smaller).
    public var maximumResponseBytes: Int
    /// How long a request may take, in seconds.
    public var timeout: TimeInterval

    /// Creates a transport to `baseURL`.
    public init(baseURL: URL, maximumResponseBytes: Int = 64 << 10, timeout: TimeInterval = 30) {
        self.baseURL = baseURL
        self.maximumResponseBytes = maximumResponseBytes
        self.timeout = timeout
    }

    /// Posts `body` to `endpoint` with `apiKey`.
    ///
    /// - Throws: `ENError.Code.dataInaccessible` when the server cannot be reached or the exchange fails;
    ///   `ENError.Code.badFormat` for a response body over ``maximumResponseBytes``.
    public func post(_ endpoint: ENVerificationEndpoint, apiKey: String, body: Data, chaff: Bool) async throws
        -> ENVerificationHTTPResponse
    {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + endpoint.path) else {
            throw ENError(.badParameter, "not a URL: \(base + endpoint.path)")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(apiKey, forHTTPHeaderField: "X-API-Key")
        if chaff { request.setValue("1", forHTTPHeaderField: "X-Chaff") }
        let (status, data) = try await BoundedFetch.send(request, maximumBytes: maximumResponseBytes)
        return ENVerificationHTTPResponse(status: status, body: data)
    }
}
