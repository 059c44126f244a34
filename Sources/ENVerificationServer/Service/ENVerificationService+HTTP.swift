public import Foundation

/// An answer to write back: the status and the body (`application/json`), exactly as Google's server writes it.
public struct ENVerificationHTTPResponse: Hashable, Sendable {
    /// The HTTP status.
    public var status: Int
    /// The body.
    public var body: Data

    /// Creates an answer.
    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }

    /// The content type of every answer.
    public static let contentType = "application/json"
}

extension ENVerificationService {
    /// Answers one request of `endpoint` as Google's middleware and handler do: the API key (`X-API-Key`; 401
    /// unless it exists and is of the route's type), chaff (on the device routes, a request with a non-empty
    /// `X-Chaff` gets 200 and a response with only `padding`, and is not processed), the body
    /// (``ENVerificationRequestDecoder``; 400 with the route's code), then the handler.
    ///
    /// - Parameters:
    ///   - endpoint: the route.
    ///   - apiKey: the `X-API-Key` header, `nil` when absent.
    ///   - contentType: the `Content-Type` header.
    ///   - body: the body, read up to ``ENVerificationRequestDecoder/maximumBodyByteCount`` bytes.
    ///   - bodyExceedsLimit: whether the body was longer.
    ///   - chaff: whether the request had a non-empty `X-Chaff` header.
    public func respond(
        to endpoint: ENVerificationEndpoint, apiKey: String?, contentType: String?, body: Data,
        bodyExceedsLimit: Bool = false, chaff: Bool = false
    ) async -> ENVerificationHTTPResponse {
        let app: ENVerificationAPIKeyRecord
        switch await authenticate(apiKey: apiKey, allowing: endpoint.apiKeyType) {
        case .failure(let error): return Self.answer(error)
        case .success(let record): app = record
        }
        if chaff && endpoint.answersChaff {
            let body =
                endpoint == .verify ? ENVerifyCodeResponse().goJSONData : ENVerificationCertificateResponse().goJSONData
            return ENVerificationHTTPResponse(status: 200, body: body)
        }
        func decode<R: ENVerificationRequest>(_ type: R.Type, code: ENVerificationErrorCode?) -> Result<
            R, ENVerificationAPIError
        > {
            ENVerificationRequestDecoder.decode(
                type, contentType: contentType, body: body, bodyExceedsLimit: bodyExceedsLimit
            ).mapError { ENVerificationAPIError(status: 400, message: $0.message, code: code) }
        }
        switch endpoint {
        case .verify:
            switch decode(ENVerifyCodeRequest.self, code: .unparsableRequest) {
            case .failure(let error): return Self.answer(error)
            case .success(let request): return Self.answer(await verify(request))
            }
        case .certificate:
            switch decode(ENVerificationCertificateRequest.self, code: .tokenInvalid) {
            case .failure(let error): return Self.answer(error)
            case .success(let request): return Self.answer(await certificate(request))
            }
        case .issue:
            switch decode(ENIssueCodeRequest.self, code: .unparsableRequest) {
            case .failure(let error): return Self.answer(error)
            case .success(let request): return Self.answer(await issue(request, by: app))
            }
        case .batchIssue:
            guard configuration.allowsBulkIssue else {
                return Self.answer(
                    ENVerificationAPIError(status: 400, message: "bulk issuing is not enabled on this realm"))
            }
            switch decode(ENBatchIssueCodeRequest.self, code: .unparsableRequest) {
            case .failure(let error): return Self.answer(error)
            case .success(let request):
                switch await batchIssue(request, by: app) {
                case .failure(let error): return Self.answer(error)
                case .success(let (status, response)):
                    return ENVerificationHTTPResponse(status: status, body: response.goJSONData)
                }
            }
        case .checkCodeStatus:
            switch decode(ENCodeStatusRequest.self, code: nil) {
            case .failure(let error): return Self.answer(error)
            case .success(let request): return Self.answer(await checkCodeStatus(request, by: app))
            }
        case .expireCode:
            switch decode(ENCodeStatusRequest.self, code: nil) {
            case .failure(let error): return Self.answer(error)
            case .success(let request): return Self.answer(await expireCode(request, by: app))
            }
        }
    }

    private static func answer(_ error: ENVerificationAPIError) -> ENVerificationHTTPResponse {
        ENVerificationHTTPResponse(status: error.status, body: error.jsonData)
    }

    private static func answer(_ result: Result<some GoJSONEncodable, ENVerificationAPIError>)
        -> ENVerificationHTTPResponse
    {
        switch result {
        case .success(let response): ENVerificationHTTPResponse(status: 200, body: response.goJSONData)
        case .failure(let error): answer(error)
        }
    }
}
