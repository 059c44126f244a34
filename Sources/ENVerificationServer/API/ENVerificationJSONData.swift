public import Foundation

// The exact bytes Google's server and client write for each body (`json.NewEncoder(w).Encode(value)`): members in
// Go's order, empty ones left out where Go's tags say `omitempty`, `<`, `>`, `&` escaped, a final newline; unset
// padding is fresh random bytes each time.

extension ENIssueCodeRequest {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}

extension ENIssueCodeResponse {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}

extension ENBatchIssueCodeRequest {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}

extension ENBatchIssueCodeResponse {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}

extension ENCodeStatusRequest {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}

extension ENCodeStatusResponse {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}

extension ENVerifyCodeRequest {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}

extension ENVerifyCodeResponse {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}

extension ENVerificationCertificateRequest {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}

extension ENVerificationCertificateResponse {
    /// The JSON Google's code writes for this value, final newline included.
    public var jsonData: Data { goJSONData }
}
