internal import ENCore
internal import ENCrypto
public import Foundation

/// Google's publish API v1 (`POST /v1/publish` of exposure-notifications-server) as a library: an HTTP layer
/// hands it the request's content type and body and sends back the ``ENPublishHTTPResponse``.
///
/// ```swift
/// let handler = ENPublishHandler(
///     storage: store,
///     configuration: ENPublishConfiguration(
///         authorizedApps: [ENPublishAuthorizedApp(healthAuthorityID: "com.example.app", verifier: verifier)],
///         revisionTokenKeys: tokenKeys))
/// let reply = await handler.handle(contentType: contentType, body: firstBytes, bodyExceedsLimit: tooLong)
/// ```
///
/// It follows Google's code (not, where they differ, Google's docs): the status codes and error codes of
/// `internal/jsonutil/unmarshal.go` and `internal/publish/publish.go`, the per-key drops with `partial_failure`,
/// the embargo of still-valid keys, days since onset, report types and revision tokens. Nothing is stored
/// unless the request succeeds, and then in one ``ENKeyServerStorage/insertAndRevise(inserting:revising:)``.
public struct ENPublishHandler: Sendable {
    /// Where keys are stored.
    public let storage: any ENKeyServerStorage
    /// The rules, limits, apps and revision-token keys.
    public let configuration: ENPublishConfiguration
    /// The server's clock.
    public let clock: @Sendable () -> Date

    /// Creates a handler.
    public init(
        storage: any ENKeyServerStorage, configuration: ENPublishConfiguration,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        self.configuration = configuration
        self.clock = clock
    }

    /// Answers a publish request from what the HTTP layer has.
    ///
    /// - Parameters:
    ///   - contentType: the `Content-Type` header (`nil` when absent); it must start with `application/json`
    ///     (415 otherwise), compared as Google compares it, case-sensitively.
    ///   - body: the body, or its first ``ENPublishConfiguration/maximumBodyBytes`` bytes; longer bodies are
    ///     cut here.
    ///   - bodyExceedsLimit: whether the body went on past the limit (the HTTP layer stopped reading). A body
    ///     whose JSON value does not end within the limit is answered 413.
    /// - Returns: the status, headers and response, with `x-api-version: v1` and random padding.
    public func handle(contentType: String?, body: Data, bodyExceedsLimit: Bool = false) async -> ENPublishHTTPResponse
    {
        let limit = configuration.maximumBodyBytes
        guard let contentType, contentType.utf8.starts(with: "application/json".utf8) else {
            return finish(
                415,
                ENPublishResponse(
                    error: "error unmarshalling API call, code: 415: content-type is not application/json",
                    code: .badRequest))
        }
        let exceeds = bodyExceedsLimit || body.count > limit
        switch ENPublishRequest.decode(Array(body.prefix(limit)), truncated: exceeds) {
        case .failure(let failure):
            return finish(
                failure.status,
                ENPublishResponse(
                    error: "error unmarshalling API call, code: \(failure.status): \(failure.message)",
                    code: .badRequest))
        case .success(let request):
            return await publish(request)
        }
    }

    /// Answers a decoded publish request: the whole of Google's `process` (health authority, certificate,
    /// revision token, publish rules, storage, new token).
    public func publish(_ request: ENPublishRequest) async -> ENPublishHTTPResponse {
        let (status, response) = await process(request)
        return finish(status, response)
    }

    /// The answer to a request with a non-empty `X-Chaff` header, which Google's server answers without reading
    /// the request: 200 with only `padding`, `paddingByteCount` random bytes in base64 (Google sizes it like the
    /// recent real responses); no `x-api-version`.
    public static func chaffResponse(paddingByteCount: Int) -> ENPublishHTTPResponse {
        ENPublishHTTPResponse(
            status: 200, headers: ["content-type": "application/json"],
            response: ENPublishResponse(padding: randomBase64(byteCount: max(0, paddingByteCount))))
    }

    // MARK: Processing

    private func finish(_ status: Int, _ response: ENPublishResponse) -> ENPublishHTTPResponse {
        var response = response
        let range = max(1, configuration.responsePaddingRange)
        let count = max(0, configuration.responsePaddingMinimumBytes) + Int.random(in: 0..<range)
        response.padding = Self.randomBase64(byteCount: count)
        return ENPublishHTTPResponse(
            status: status, headers: ["content-type": "application/json", "x-api-version": "v1"], response: response)
    }

    /// `byteCount` random bytes in base64: one call of OpenSSL's generator for the whole padding (drawing it a byte
    /// at a time from the system's generator made one `getrandom` system call per byte, a quarter of a publish's
    /// time); the system's generator a word at a time only if OpenSSL's fails.
    private static func randomBase64(byteCount: Int) -> String {
        if let bytes = try? SecureRandom.bytes(count: byteCount) { return bytes.base64EncodedString() }
        var generator = SystemRandomNumberGenerator()
        var bytes = Data(capacity: byteCount + 8)
        while bytes.count < byteCount {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return bytes.prefix(byteCount).base64EncodedString()
    }

    private func process(_ request: ENPublishRequest) async -> (Int, ENPublishResponse) {
        let now = clock()
        let id = request.healthAuthorityID.lowercased()
        guard let app = configuration.authorizedApps.first(where: { $0.healthAuthorityID.lowercased() == id }) else {
            return (
                401,
                ENPublishResponse(
                    error: "unauthorized health authority: \(request.healthAuthorityID)",
                    code: .unknownHealthAuthorityID)
            )
        }
        // The keys' regions: the app's, else the server's default (Google's publish.go, before the certificate).
        let regions = app.regions.isEmpty ? configuration.defaultRegion.map { [$0] } ?? [] : app.regions
        guard !regions.isEmpty else {
            return (
                500,
                ENPublishResponse(
                    error: "unknown health authority regions for \(request.healthAuthorityID)",
                    code: .healthAuthorityMissingRegionConfiguration)
            )
        }
        var claims: ENVerifiedClaims?
        do {
            claims = try await app.verifier.verify(request, at: now)
        } catch {
            if !app.bypassesCertificateVerification {
                return (
                    401,
                    ENPublishResponse(
                        error: "unable to validate diagnosis verification: \(error.reason)",
                        code: .verificationCertificateInvalid)
                )
            }
        }

        // A token that is not base64 is ignored; one that does not open fails a revision.
        var token: [RevisionToken.Key]?
        var tokenFailed = false
        if !request.revisionToken.isEmpty, case .success(let bytes) = GoBase64.decode(request.revisionToken) {
            do {
                token = try RevisionToken.open(bytes, with: configuration.revisionTokenKeys)
            } catch {
                tokenFailed = true
            }
        }

        let transform = PublishTransform(
            request, claims: claims, origin: ENKeyServerKeyOrigin(regions: regions, traveler: request.traveler),
            at: now,
            configuration: configuration)
        if let error = transform.error, transform.exposures.isEmpty {
            return (
                400,
                ENPublishResponse(
                    error: "unable to read request data: \(error)", code: .badRequest, warnings: transform.warnings)
            )
        }

        let stored: PublishRevision.Outcome
        do {
            stored = try await PublishRevision.apply(
                transform.exposures, token: token, requiresToken: !app.bypassesRevisionToken,
                allowsPartialRevisions: configuration.allowsPartialRevisions, storage: storage)
        } catch {
            let code: ENPublishErrorCode
            let message: String
            switch error {
            case _ where tokenFailed, .existingKeyNotInToken, .tokenMetadataMismatch:
                (code, message) = (.invalidRevisionToken, "revision token is invalid")
            case .noRevisionToken:
                (code, message) = (.missingRevisionToken, "no revision token, but sent existing keys")
            case .keyAlreadyRevised: (code, message) = (.keyAlreadyRevised, "key was already revised")
            case .invalidTransition(let from, let to):
                (code, message) = (
                    .invalidReportTypeTransition,
                    "invalid report type transition, cannot transition from '\(from)' to '\(to)'"
                )
            case .incomingMetadataMismatch, .storage: (code, message) = (.internalError, "Internal Server Error")
            }
            return (400, ENPublishResponse(error: message, code: code, warnings: transform.warnings))
        }

        // The new token: the old token's keys still young enough, then the keys inserted or revised now.
        var entries: [RevisionToken.Key] = []
        var listed = Set<Data>()
        let oldest = PublishTransform.interval(now.timeIntervalSince1970 - configuration.maximumKeyAge)
        for key in token ?? [] where Int64(key.intervalNumber) + Int64(key.intervalCount) >= oldest {
            listed.insert(key.keyData)
            entries.append(key)
        }
        let hasKeys = !entries.isEmpty || !stored.tokenKeys.isEmpty
        for key in stored.tokenKeys where !listed.contains(key.keyData) { entries.append(key) }
        var tokenText = ""
        if hasKeys, let sealed = try? RevisionToken.seal(entries, with: configuration.revisionTokenKeys) {
            tokenText = sealed.base64EncodedString()
        }
        var response = ENPublishResponse(
            revisionToken: tokenText, insertedExposures: stored.inserted, warnings: transform.warnings)
        if let error = transform.error {
            response.code = .partialFailure
            response.error = error
        }
        return (200, response)
    }
}
