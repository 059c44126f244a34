internal import ENCore
internal import ENCrypto
internal import ENVerificationServer
internal import Foundation

extension FuzzTarget {
    /// The verification server's fuzzing clock: 2020-08-01 12:00 UTC (the seeds' dates are the days before).
    static let verificationNow = Date(timeIntervalSince1970: 1_596_283_200)

    /// The token and certificate keys of the fuzzed services, made once.
    static let verificationKeys: (token: P256SigningKey, certificate: P256SigningKey)? = {
        guard let token = try? P256SigningKey(), let certificate = try? P256SigningKey() else { return nil }
        return (token, certificate)
    }()

    /// What one fuzzed request is answered by: a fresh service on an in-memory store at ``verificationNow``, with an
    /// admin and a device key, a code issued and a second code verified, so that the placeholders `@CODE@`,
    /// `@LONGCODE@`, `@UUID@` (the first code's) and `@TOKEN@` (the second's) in an input stand for live values.
    struct VerificationBench {
        let service: ENVerificationService
        let adminKey: String
        let deviceKey: String
        let placeholders: [(String, String)]

        init(target: FuzzTarget) async throws(FuzzViolation) {
            guard let keys = FuzzTarget.verificationKeys else {
                throw FuzzViolation(target, "the fixed keys do not load")
            }
            do {
                service = try ENVerificationService(
                    configuration: ENVerificationConfiguration(),
                    secrets: try ENVerificationSecrets(masterKey: Data(repeating: 7, count: 32)), tokenKey: keys.token,
                    certificateKey: keys.certificate, storage: try ENVerificationSQLiteStore(),
                    clock: { FuzzTarget.verificationNow })
                adminKey = try await service.createAPIKey(name: "admin", type: .admin)
                deviceKey = try await service.createAPIKey(name: "device", type: .device)
            } catch {
                throw FuzzViolation(target, "the fuzzing service does not start: \(error)")
            }
            let issue = Data(#"{"testType":"confirmed","symptomDate":"2020-07-30"}"#.utf8)
            let first = await service.respond(
                to: .issue, apiKey: adminKey, contentType: "application/json", body: issue)
            let second = await service.respond(
                to: .issue, apiKey: adminKey, contentType: "application/json", body: issue)
            let firstJSON = FuzzTarget.jsonObject(first.body)
            let secondJSON = FuzzTarget.jsonObject(second.body)
            guard let code = firstJSON?["code"] as? String, let longCode = firstJSON?["longCode"] as? String,
                let uuid = firstJSON?["uuid"] as? String, let other = secondJSON?["code"] as? String
            else { throw FuzzViolation(target, "the fuzzing service issues no code") }
            let verified = await service.respond(
                to: .verify, apiKey: deviceKey, contentType: "application/json",
                body: Data(#"{"code":"\#(other)"}"#.utf8))
            guard let token = FuzzTarget.jsonObject(verified.body)?["token"] as? String else {
                throw FuzzViolation(target, "the fuzzing service verifies no code")
            }
            placeholders = [("@LONGCODE@", longCode), ("@CODE@", code), ("@UUID@", uuid), ("@TOKEN@", token)]
        }

        /// `input` with each placeholder replaced by its live value (bytes elsewhere untouched).
        func substituted(_ input: Data) -> Data {
            var bytes = Array(input)
            for (name, value) in placeholders {
                bytes = FuzzTarget.replacing(Array(name.utf8), with: Array(value.utf8), in: bytes)
            }
            return Data(bytes)
        }
    }

    /// A request body of Google's verification API, decoded by `ENVerificationRequestDecoder`
    /// and answered by `ENVerificationService.respond(to:apiKey:contentType:body:bodyExceedsLimit:chaff:)`
    /// (a fresh service each time):
    ///
    /// - a decoded request, written back as Google writes it, decodes to itself; a body past the limit is refused;
    /// - every answer is JSON with Google's statuses (never 401 with the right key, 500 only for Google's invalid-UUID
    ///   answers), an error message on every refusal and only known error codes; a refused body is a 400 with the
    ///   decoder's message;
    /// - a code or a token the service accepted is refused the second time, with Google's code.
    static func fuzzVerificationRequest<Request: ENVerificationRequest & Equatable>(
        _ input: Data, _ type: Request.Type, endpoint: ENVerificationEndpoint, target: FuzzTarget,
        encode: (Request) -> Data
    ) throws(FuzzViolation) {
        try checkGoJSONRoundTrip(Array(input), target: target)
        let decoded = ENVerificationRequestDecoder.decode(type, contentType: "application/json", body: input)
        if case .success = ENVerificationRequestDecoder.decode(
            type, contentType: "application/json", body: input, bodyExceedsLimit: true)
        {
            throw FuzzViolation(target, "a body past the limit is accepted")
        }
        if case .success(let request) = decoded {
            switch ENVerificationRequestDecoder.decode(type, contentType: "application/json", body: encode(request)) {
            case .success(let again):
                guard again == request else { throw FuzzViolation(target, "a request changes in its round trip") }
            case .failure(let error):
                throw FuzzViolation(target, "a request, written back, is refused: \(error.message)")
            }
        }
        let outcome = blocking { () async -> Result<Void, FuzzViolation> in
            do throws(FuzzViolation) {
                try await respondChecks(input, decoded: decoded.map { _ in () }, endpoint: endpoint, target: target)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    /// The service's answers to the input (its placeholders substituted) and, when accepted, to the same again.
    private static func respondChecks(
        _ input: Data, decoded: Result<Void, ENVerificationRequestDecoder.BindError>,
        endpoint: ENVerificationEndpoint, target: FuzzTarget
    ) async throws(FuzzViolation) {
        let bench = try await VerificationBench(target: target)
        let key = endpoint.apiKeyType == .admin ? bench.adminKey : bench.deviceKey
        let body = bench.substituted(input)
        let answer = await bench.service.respond(
            to: endpoint, apiKey: key, contentType: "application/json", body: body)
        let json = try checkAnswer(answer, target: target)
        if body == input, case .failure(let error) = decoded {
            guard answer.status == 400, json["error"] as? String == error.message else {
                throw FuzzViolation(target, "a refused body is answered \(answer.status) \(json)")
            }
        }
        guard answer.status == 200 else { return }
        switch endpoint {
        case .verify, .certificate:
            let again = await bench.service.respond(
                to: endpoint, apiKey: key, contentType: "application/json", body: body)
            let againJSON = try checkAnswer(again, target: target)
            let expected = endpoint == .verify ? "code_invalid" : "token_expired"
            guard again.status == 400, againJSON["errorCode"] as? String == expected else {
                throw FuzzViolation(target, "an accepted \(endpoint) is accepted again: \(again.status) \(againJSON)")
            }
        case .issue:
            guard let code = json["code"] as? String, !code.isEmpty, let uuid = json["uuid"] as? String else {
                throw FuzzViolation(target, "an issued code has no code or UUID: \(json)")
            }
            let status = await bench.service.respond(
                to: .checkCodeStatus, apiKey: bench.adminKey, contentType: "application/json",
                body: Data(#"{"uuid":"\#(uuid)"}"#.utf8))
            guard status.status == 200 else {
                throw FuzzViolation(target, "an issued code's status is \(status.status)")
            }
        default:
            break
        }
    }

    /// An answer's JSON object, checked: Google's statuses, a message on every refusal, known error codes.
    private static func checkAnswer(_ answer: ENVerificationHTTPResponse, target: FuzzTarget) throws(FuzzViolation)
        -> [String: Any]
    {
        guard let json = jsonObject(answer.body) else {
            throw FuzzViolation(target, "an answer (\(answer.status)) is not a JSON object")
        }
        let message = json["error"] as? String ?? ""
        switch answer.status {
        case 200: break
        case 400, 404, 409, 412:
            guard !message.isEmpty else { throw FuzzViolation(target, "a \(answer.status) has no error message") }
        // Google's answers for a `uuid` that is not one (PostgreSQL's `uuid` type refuses it): on issue, and on a
        // status lookup or an expiry.
        case 500
        where message.hasPrefix("invalid input syntax for type uuid")
            || message == "failed to check otp code status, please try again":
            break
        default:
            throw FuzzViolation(target, "an answer is \(answer.status): \(message)")
        }
        let known: Set<ENVerificationErrorCode> = [
            .unparsableRequest, .codeInvalid, .codeExpired, .codeNotFound, .unsupportedTestType, .invalidTestType,
            .missingDate, .invalidDate, .uuidAlreadyExists, .tokenInvalid, .tokenExpired, .hmacInvalid,
            .internalServerError, ENVerificationErrorCode(rawValue: ""),
        ]
        if let code = json["errorCode"] as? String, !known.contains(ENVerificationErrorCode(rawValue: code)) {
            throw FuzzViolation(target, "an answer has the error code \(code)")
        }
        return json
    }

    /// A JSON object, or `nil`.
    static func jsonObject(_ data: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// `bytes` with every `pattern` replaced by `replacement`.
    static func replacing(_ pattern: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if index + pattern.count <= bytes.count, bytes[index..<index + pattern.count].elementsEqual(pattern) {
                out += replacement
                index += pattern.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// Runs `body` to its end and waits for it (a fuzz target is synchronous). The task runs on a thread of its
    /// own (``FuzzTaskExecutor``), not on the concurrency pool, so that callers blocked here on pool threads (tests
    /// running in parallel) cannot starve it.
    static func blocking<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Value {
        let result = BlockingResult<Value>()
        Task(executorPreference: FuzzTaskExecutor.shared) {
            result.set(await body())
        }
        return result.wait()
    }
}

/// A task executor on one serial dispatch queue, outside the concurrency pool.
final class FuzzTaskExecutor: TaskExecutor {
    /// The one executor.
    static let shared = FuzzTaskExecutor()

    private let queue = DispatchQueue(label: "ENFuzzTargets.FuzzTaskExecutor")

    /// Runs `job` on the queue.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// The value of a task a synchronous caller waits for.
final class BlockingResult<Value: Sendable>: Sendable {
    private let value = Locked<Value?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Sets the value and wakes the caller.
    func set(_ newValue: Value) {
        value.withLock { $0 = newValue }
        done.signal()
    }

    /// Waits for the value.
    func wait() -> Value {
        done.wait()
        return value.withLock { $0! }
    }
}
