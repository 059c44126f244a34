internal import ENCore
internal import ENCrypto
internal import ENKeyServer
internal import ENVerificationServer
internal import Foundation

/// The health authority of an in-process run, which closes its key server to confirmed cases: a verification
/// server (`ENVerificationService`, in memory, on the run's virtual clock) issues a code for each positive
/// diagnosis, the phone's app exchanges it through `ENVerificationClient` for a token and a certificate of its
/// keys, and the key server's publish API (`ENPublishHandler`, Google's `/v1/publish`) accepts the keys only with
/// that certificate, as `enserver --verifier certificate` does.
struct SimulationHealthAuthority: Sendable {
    /// The app's health authority ID, the certificates' issuer and audience, and the certificate key's version.
    static let (healthAuthorityID, issuer, audience, keyID) = (
        "simulation.app", "simulation.verification", "simulation.keyserver", "v1"
    )

    /// The verification server.
    let service: ENVerificationService
    /// The health authority's staff: an admin API key's record, which issues codes.
    let staff: ENVerificationAPIKeyRecord
    /// The app's client, with a device API key, on the service itself as its transport.
    let app: ENVerificationClient
    /// The publish API's apps: the one app, its certificates checked against the certificate key.
    let authorizedApps: [ENPublishAuthorizedApp]
    /// The revision-token keys of the publish API.
    let revisionTokenKeys: ENRevisionTokenKeys

    /// A health authority on `clock` with fresh keys and secrets.
    init(clock: @escaping @Sendable () -> Date) async throws(ENError) {
        let certificateKey = try P256SigningKey()
        var configuration = ENVerificationConfiguration()
        configuration.tokenIssuer = Self.issuer
        configuration.certificateIssuer = Self.issuer
        configuration.certificateAudience = Self.audience
        configuration.certificateKeyID = Self.keyID
        service = try ENVerificationService(
            configuration: configuration, secrets: try ENVerificationSecrets(masterKey: SecureRandom.bytes(count: 32)),
            tokenKey: try P256SigningKey(), certificateKey: certificateKey, storage: try ENVerificationSQLiteStore(),
            clock: clock)
        let adminKey = try await service.createAPIKey(name: "health authority", type: .admin)
        guard case .success(let record) = await service.authenticate(apiKey: adminKey, allowing: .admin) else {
            throw ENError(.unknown, "the health authority's admin key does not authenticate")
        }
        staff = record
        app = ENVerificationClient(
            apiKey: try await service.createAPIKey(name: "app", type: .device), transport: service)
        let verifier = ENVerificationCertificateVerifier(healthAuthorities: [
            .init(
                issuer: Self.issuer, audience: Self.audience,
                keys: [.init(version: Self.keyID, publicKey: try certificateKey.publicKey)])
        ])
        authorizedApps = [ENPublishAuthorizedApp(healthAuthorityID: Self.healthAuthorityID, verifier: verifier)]
        revisionTokenKeys = ENRevisionTokenKeys(currentKeyID: 1, keys: [1: try AESGCM.Key.generate()])
    }

    /// The publish request for `keys` of a confirmed case whose symptoms began on `symptomOnsetDay` (days since
    /// the epoch): the code issued, verified and certified as Google's services do it, the request carrying the
    /// certificate and the HMAC key.
    ///
    /// - Throws: `ENError.Code.notAuthorized` with the verification server's error code when it refuses.
    func certifiedRequest(
        for keys: [ENTemporaryExposureKey], symptomOnsetDay: UInt32
    ) async throws(ENError) -> ENPublishRequest {
        let (service, staff) = (service, staff)
        return try await Self.certifiedRequest(
            for: keys, symptomOnsetDay: symptomOnsetDay, healthAuthorityID: Self.healthAuthorityID, app: app
        ) { request throws(ENError) in
            switch await service.issue(request, by: staff) {
            case .success(let issued): return issued.code
            case .failure(let refusal): throw Self.refused("issue", refusal)
            }
        }
    }

    /// The keys as the publish API takes them.
    static func publishKeys(_ keys: [ENTemporaryExposureKey]) -> [ENPublishExposureKey] {
        keys.map {
            ENPublishExposureKey(
                key: $0.keyData.base64EncodedString(), rollingStartNumber: Int32(clamping: $0.rollingStartNumber),
                rollingPeriod: Int32(clamping: $0.rollingPeriod), transmissionRisk: Int($0.transmissionRiskLevel))
        }
    }

    /// The publish request for `keys` of a confirmed case whose symptoms began on `symptomOnsetDay`, for the app
    /// `healthAuthorityID`: the health authority's staff issue a code through `issue` (its answer: the code), the
    /// app verifies it and gets a certificate for the keys through `app`, in process or over HTTP alike.
    ///
    /// - Throws: `ENError.Code.notAuthorized` with the verification server's error code when it refuses;
    ///   what `issue` and `app`'s transport throw.
    static func certifiedRequest(
        for keys: [ENTemporaryExposureKey], symptomOnsetDay: UInt32, healthAuthorityID: String,
        app: ENVerificationClient, issue: (ENIssueCodeRequest) async throws(ENError) -> String
    ) async throws(ENError) -> ENPublishRequest {
        let sent = publishKeys(keys)
        let code = try await issue(
            ENIssueCodeRequest(
                testType: ENVerificationTestType.confirmed.rawValue,
                symptomDate: ENVerificationDate(daysSinceEpoch: Int(symptomOnsetDay)).description))
        do {
            let token = try await app.verify(code: code, accept: [.confirmed]).token
            let certificate = try await app.certificate(token: token, keys: sent)
            return ENPublishRequest(
                temporaryExposureKeys: sent, healthAuthorityID: healthAuthorityID,
                verificationPayload: certificate.certificate, hmacKey: certificate.hmacKey,
                symptomOnsetInterval: Int32(clamping: symptomOnsetDay * ENIntervalNumberPerDay))
        } catch let refusal as ENVerificationAPIError {
            throw Self.refused("verify and certificate", refusal)
        } catch let error as ENError {
            throw error
        } catch {
            throw ENError(.unknown, "the verification client failed: \(error)")
        }
    }

    static func refused(_ step: String, _ refusal: ENVerificationAPIError) -> ENError {
        ENError(.notAuthorized, "the verification server refused \(step): \(refusal)")
    }
}
