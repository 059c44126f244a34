internal import ENCore
internal import ENVerificationServer
public import Foundation

/// A parser of outside input that the package fuzzes, with the rules its result must keep.
///
/// Each target takes one input as bytes and calls the package's public entry point for it. An `ENError` is
/// an accepted outcome (bad input refused); a violated rule is a ``FuzzViolation``: a result that contradicts
/// itself (a decoded value that does not survive its own round trip, two decoders of one format that
/// disagree), a refused file that was changed, a signature that verifies without the key. A crash, a hang or
/// an allocation past the limits is caught by libFuzzer and the sanitizers around the same call.
///
/// `Scripts/fuzz.sh TARGET` fuzzes one target with libFuzzer; `swift run enfuzz TARGET FILE...` replays
/// inputs without instrumentation; the regression tests replay every kept crasher and the seed corpora.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `ENExportArchive(data:)` on a zip or a bare `export.bin`, then the key export, the streaming scanner,
    /// the signature list and verification against a fixed trusted key.
    case exportArchive = "export-archive"
    /// `ENKeyExport(exportBinary:)`: a decoded export survives its own round trip.
    case exportBinary = "export-binary"
    /// `ENExportKeyScanner` over both sections, rejecting and skipping invalid keys: it agrees with
    /// `ENKeyExport` on every file both accept, and its encoded chunks (what a detection matches) agree with it.
    case keyScanner = "key-scanner"
    /// `ENExportSignature.decodeList` on an `export.sig`, then verification of a fixed `export.bin` with it:
    /// a decoded list survives its round trip, and nothing verifies without the signing key.
    case exportSignature = "export-signature"
    /// `ENExposureConfiguration(jsonData:)` in both formats: a decoded configuration is valid and survives
    /// its round trip.
    case exposureConfiguration = "exposure-configuration"
    /// Opening an `ENDeviceStore` file: a refused file is left byte for byte as it was, and an opened one answers
    /// every query or refuses it with an error.
    case store = "store"
    /// `entool score` input, version 1 (`{"exposures": [...]}`) and version 2 (`{"windows": [...]}`), scored with
    /// a fixed configuration: every refusal is an `ENError`, and a scored result encodes as JSON.
    case scoreInput = "score-input"
    /// `entool detect --sightings` JSON: every refusal is an `ENError`, and accepted sightings keep their values.
    case sightings = "sightings"
    /// A `POST /v1/publish` body as `ENPublishHandler` reads it (Go's JSON reader `GoJSON`, then the request's
    /// fields), whole and cut at the body limit: both readings agree, every refusal is a 400 or 413 with an
    /// `ENError`, and an accepted request (and the first JSON value) survives its round trip.
    case publishRequest = "publish-request"
    /// A verification certificate (the request's `verificationPayload`) parsed and checked by
    /// `ENVerificationCertificateVerifier` with a fixed key set: a parsed certificate survives its round trip, only
    /// signed headers and claims verify, and verified claims re-encoded and signed again verify the same.
    case verificationCertificate = "verification-certificate"
    /// A revision token as text, as its envelope and as the sealed key list, opened with a fixed key set: what
    /// opens survives sealing and opening again.
    case revisionToken = "revision-token"
    /// A `POST /api/verify` body (`ENVerifyCodeRequest`), decoded and answered by a fresh verification service whose
    /// live code and long code stand in for `@CODE@` and `@LONGCODE@`: see ``fuzzVerificationRequest(_:_:endpoint:target:encode:)``.
    case verifyRequest = "verify-request"
    /// A `POST /api/certificate` body (`ENVerificationCertificateRequest`), with a live token for `@TOKEN@`.
    case certificateRequestBody = "certificate-request"
    /// A `POST /api/issue` body (`ENIssueCodeRequest`).
    case issueRequest = "issue-request"
    /// A `POST /api/batch-issue` body (`ENBatchIssueCodeRequest`).
    case batchIssueRequest = "batch-issue-request"
    /// A `POST /api/checkcodestatus` body (`ENCodeStatusRequest`, a live code's UUID for `@UUID@`); the same body expires the code in
    /// `POST /api/expirecode`, which the target answers too.
    case codeStatusRequest = "code-status-request"

    /// Runs the target on one input.
    ///
    /// - Throws: ``FuzzViolation`` when the package broke one of its rules on this input.
    public func run(_ input: Data) throws(FuzzViolation) {
        switch self {
        case .exportArchive: try Self.fuzzExportArchive(input)
        case .exportBinary: try Self.fuzzExportBinary(input)
        case .keyScanner: try Self.fuzzKeyScanner(input)
        case .exportSignature: try Self.fuzzExportSignature(input)
        case .exposureConfiguration: try Self.fuzzExposureConfiguration(input)
        case .store: try Self.fuzzStore(input)
        case .scoreInput: try Self.fuzzScoreInput(input)
        case .sightings: try Self.fuzzSightings(input)
        case .publishRequest: try Self.fuzzPublishRequest(input)
        case .verificationCertificate: try Self.fuzzVerificationCertificate(input)
        case .revisionToken: try Self.fuzzRevisionToken(input)
        case .verifyRequest:
            try Self.fuzzVerificationRequest(
                input, ENVerifyCodeRequest.self, endpoint: .verify, target: self, encode: \.jsonData)
        case .certificateRequestBody:
            try Self.fuzzVerificationRequest(
                input, ENVerificationCertificateRequest.self, endpoint: .certificate, target: self, encode: \.jsonData)
        case .issueRequest:
            try Self.fuzzVerificationRequest(
                input, ENIssueCodeRequest.self, endpoint: .issue, target: self, encode: \.jsonData)
        case .batchIssueRequest:
            try Self.fuzzVerificationRequest(
                input, ENBatchIssueCodeRequest.self, endpoint: .batchIssue, target: self, encode: \.jsonData)
        case .codeStatusRequest:
            try Self.fuzzVerificationRequest(
                input, ENCodeStatusRequest.self, endpoint: .checkCodeStatus, target: self, encode: \.jsonData)
            try Self.fuzzVerificationRequest(
                input, ENCodeStatusRequest.self, endpoint: .expireCode, target: self, encode: \.jsonData)
        }
    }
}
