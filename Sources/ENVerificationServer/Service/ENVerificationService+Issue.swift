internal import Foundation

extension ENVerificationService {
    /// Issues a code (Google's `/api/issue`), with Google's order of checks: the date requirement, the symptom
    /// date, the test date, SMS options (not supported: `onlyGenerateSMS` is 400 `unparsable_request`, a `phone`
    /// 400 without a code), the UUID, the test type; then the codes are drawn, and drawn again on a collision.
    public func issue(_ request: ENIssueCodeRequest, by app: ENVerificationAPIKeyRecord) async
        -> Result<ENIssueCodeResponse, ENVerificationAPIError>
    {
        do throws(ENVerificationAPIError) {
            return .success(try await issueOne(request, by: app))
        } catch {
            return .failure(error)
        }
    }

    /// Issues up to 10 codes (Google's `/api/batch-issue`): each request as ``issue(_:by:)``; the answer has one
    /// entry per request (a failed entry carries its `error` and `errorCode`), and the status and `errorCode` of
    /// the first failure.
    ///
    /// - Returns: the status and the response, or 400 (without a code) when bulk issuing is off or there are more
    ///   than 10 requests.
    public func batchIssue(_ request: ENBatchIssueCodeRequest, by app: ENVerificationAPIKeyRecord) async
        -> Result<(status: Int, response: ENBatchIssueCodeResponse), ENVerificationAPIError>
    {
        guard configuration.allowsBulkIssue else {
            return .failure(ENVerificationAPIError(status: 400, message: "bulk issuing is not enabled on this realm"))
        }
        guard request.codes.count <= Self.maximumBatchSize else {
            return .failure(
                ENVerificationAPIError(status: 400, message: "batch size limit [\(Self.maximumBatchSize)] exceeded"))
        }
        var status = 200
        var response = ENBatchIssueCodeResponse()
        var failures = 0
        for entry in request.codes {
            switch await issue(entry, by: app) {
            case .success(var issued):
                issued.padding = Data()
                response.codes.append(issued)
            case .failure(let error):
                failures += 1
                response.codes.append(
                    ENIssueCodeResponse(error: error.message, errorCode: error.code?.rawValue ?? "", padding: Data()))
                if status == 200 {
                    status = error.status
                    response.errorCode = error.code?.rawValue ?? ""
                }
            }
        }
        if failures > 0 {
            var message = "Failed to issue \(failures) codes."
            let succeeded = request.codes.count - failures
            if succeeded > 0 { message += " Issued \(succeeded) codes successfully." }
            message += "See each error status in the codes array."
            response.error = message
        }
        return .success((status, response))
    }

    /// Google's `maxBatchSize`.
    public static let maximumBatchSize = 10

    private func issueOne(_ request: ENIssueCodeRequest, by app: ENVerificationAPIKeyRecord)
        async
        throws(ENVerificationAPIError) -> ENIssueCodeResponse
    {
        let now = clock()
        if configuration.requiresDate && request.symptomDate.isEmpty && request.testDate.isEmpty {
            throw ENVerificationAPIError(
                status: 400, message: "missing either test or symptom date", code: .missingDate)
        }
        // Go's int(float32): toward zero.
        let offset = request.tzOffset.isFinite && abs(request.tzOffset) < 1e9 ? Int(request.tzOffset) : 0
        let symptomDate = try configuration.dateRule.check(
            request.symptomDate, name: "symptom onset", tzOffset: offset, now: now)
        let testDate = try configuration.dateRule.check(request.testDate, name: "test", tzOffset: offset, now: now)
        if request.onlyGenerateSMS {
            throw ENVerificationAPIError(
                status: 400, message: "realm is not permitted to use onlyGenerateSMS", code: .unparsableRequest)
        }
        if !request.phone.isEmpty {
            throw ENVerificationAPIError(status: 400, message: "phone provided, but no sms provider is configured")
        }
        var uuid = Self.trimmedPrintable(request.uuid)
        if !uuid.isEmpty {
            guard let normalized = Self.normalizedUUID(uuid) else {
                throw ENVerificationAPIError(
                    status: 500, message: "invalid input syntax for type uuid: \"\(uuid)\"",
                    code: .internalServerError)
            }
            uuid = normalized
            let existing: ENVerificationCodeRecord?
            do {
                existing = try await storage.code(uuid: uuid)
            } catch {
                throw ENVerificationAPIError(status: 500, message: "\(error)", code: .internalServerError)
            }
            guard existing == nil else {
                throw ENVerificationAPIError(
                    status: 409, message: "code for \(uuid) already exists", code: .uuidAlreadyExists)
            }
        }
        if request.testType == ENVerificationTestType.userReport.rawValue,
            !configuration.allowedTestTypes.contains(.userReport)
        {
            throw ENVerificationAPIError(
                status: 400, message: "unsupported test type: \(request.testType)", code: .unsupportedTestType)
        }
        guard let testType = ENVerificationTestType(rawValue: request.testType.lowercased()) else {
            throw ENVerificationAPIError(status: 400, message: "invalid test type", code: .invalidTestType)
        }
        guard configuration.allowedTestTypes.contains(testType) else {
            throw ENVerificationAPIError(
                status: 400, message: "unsupported test type: \(request.testType)", code: .unsupportedTestType)
        }
        guard request.externalIssuerID.count <= 255 else {
            throw ENVerificationAPIError(
                status: 500, message: "failed to generate otp code, please try again", code: .internalServerError)
        }
        let expiresAt = now.addingTimeInterval(configuration.codeDuration)
        let longExpiresAt = now.addingTimeInterval(configuration.longCodeDuration)
        for _ in 0...configuration.collisionRetryCount {
            let code = ENVerificationCodeGenerator.shortCode(length: configuration.codeLength)
            let longCode =
                configuration.longCodeLength > 0
                ? ENVerificationCodeGenerator.longCode(length: configuration.longCodeLength) : code
            let record = ENVerificationCodeRecord(
                uuid: uuid.isEmpty ? UUID().uuidString.lowercased() : uuid, codeHMAC: secrets.codeHMAC(code),
                longCodeHMAC: secrets.codeHMAC(longCode), testType: testType, symptomDate: symptomDate,
                testDate: testDate, expiresAt: expiresAt, longExpiresAt: longExpiresAt, issuingAPIKeyID: app.id,
                externalIssuerID: request.externalIssuerID, createdAt: now)
            let insertion: ENVerificationCodeInsertion
            do {
                insertion = try await storage.insertCode(record)
            } catch {
                throw ENVerificationAPIError(
                    status: 500, message: "failed to generate otp code, please try again", code: .internalServerError)
            }
            switch insertion {
            case .inserted:
                return ENIssueCodeResponse(
                    uuid: record.uuid, code: code, longCode: configuration.longCodeLength > 0 ? longCode : "",
                    expiresAt: Self.rfc1123(expiresAt), expiresAtTimestamp: Self.unix(expiresAt),
                    longExpiresAt: Self.rfc1123(longExpiresAt), longExpiresAtTimestamp: Self.unix(longExpiresAt))
            case .uuidTaken:
                throw ENVerificationAPIError(
                    status: 409, message: "code for \(record.uuid) already exists", code: .uuidAlreadyExists)
            case .codeTaken:
                continue
            }
        }
        throw ENVerificationAPIError(
            status: 500, message: "failed to generate otp code, please try again", code: .internalServerError)
    }

    /// Go's `project.TrimSpaceAndNonPrintable`.
    static func trimmedPrintable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter { !($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) })
        )
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
