public import ENCore
internal import Foundation

extension ENVerificationService {
    /// A code's status (Google's `/api/checkcodestatus`): 404 `code_not_found` for an unknown UUID, 401
    /// `code_user_unauthorized` for a key that neither issued the code nor is an admin key.
    public func checkCodeStatus(_ request: ENCodeStatusRequest, by app: ENVerificationAPIKeyRecord) async
        -> Result<ENCodeStatusResponse, ENVerificationAPIError>
    {
        switch await findCode(request.uuid, by: app) {
        case .failure(let error): return .failure(error)
        case .success(let code):
            return .success(
                ENCodeStatusResponse(
                    claimed: code.claimed, expiresAtTimestamp: Self.unix(code.expiresAt),
                    longExpiresAtTimestamp: Self.unix(code.longExpiresAt)))
        }
    }

    /// Expires a code now (Google's `/api/expirecode`): the checks of ``checkCodeStatus(_:by:)``, then 400
    /// `bad request` for a claimed code; a code expired already is answered unchanged.
    public func expireCode(_ request: ENCodeStatusRequest, by app: ENVerificationAPIKeyRecord) async
        -> Result<ENCodeStatusResponse, ENVerificationAPIError>
    {
        let code: ENVerificationCodeRecord
        switch await findCode(request.uuid, by: app) {
        case .failure(let error): return .failure(error)
        case .success(let found): code = found
        }
        do {
            switch try await storage.expireCode(uuid: code.uuid, now: clock()) {
            case .notFound:
                return .failure(
                    ENVerificationAPIError(
                        status: 404, message: "code not found, it may have expired and been removed",
                        code: .codeNotFound))
            case .claimed: return .failure(.badRequest)
            case .expired(let record):
                return .success(
                    ENCodeStatusResponse(
                        claimed: nil, expiresAtTimestamp: Self.unix(record.expiresAt),
                        longExpiresAtTimestamp: Self.unix(record.longExpiresAt)))
            }
        } catch {
            return .failure(.internalError)
        }
    }

    /// Google's cleanup, at the configured ages: codes both of whose codes expired ``ENVerificationConfiguration/codeMaxAge``
    /// ago are forgotten (their status stays), entries expired ``ENVerificationConfiguration/codeStatusMaxAge`` ago
    /// deleted, tokens expired ``ENVerificationConfiguration/tokenMaxAge`` ago deleted.
    public func deleteExpired() async throws(ENError) -> ENVerificationCleanup {
        let now = clock()
        return try await storage.deleteExpired(
            recyclingCodesBefore: now.addingTimeInterval(-configuration.codeMaxAge),
            deletingCodesBefore: now.addingTimeInterval(-configuration.codeStatusMaxAge),
            deletingTokensBefore: now.addingTimeInterval(-configuration.tokenMaxAge))
    }

    /// Google's `checkCodeStatus`.
    private func findCode(_ uuid: String, by app: ENVerificationAPIKeyRecord) async
        -> Result<ENVerificationCodeRecord, ENVerificationAPIError>
    {
        let failed = ENVerificationAPIError(
            status: 500, message: "failed to check otp code status, please try again", code: .internalServerError)
        guard let normalized = Self.normalizedUUID(uuid) else { return .failure(failed) }
        let found: ENVerificationCodeRecord?
        do {
            found = try await storage.code(uuid: normalized)
        } catch {
            return .failure(failed)
        }
        guard let code = found else {
            return .failure(
                ENVerificationAPIError(
                    status: 404, message: "code not found, it may have expired and been removed", code: .codeNotFound))
        }
        guard code.issuingAPIKeyID == app.id || app.type == .admin else {
            return .failure(
                ENVerificationAPIError(
                    status: 401, message: "API key does not match issuer", code: .codeUserUnauthorized))
        }
        return .success(code)
    }
}
