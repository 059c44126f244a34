internal import ENCore
internal import ENCrypto
internal import ENKeyServer
internal import ENVerificationServer
internal import ExposureNotificationKit
internal import Foundation

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// A key server over HTTP (see ``ENSimulation/RemoteKeyServer``): its test clock follows the virtual clock.
struct RemoteKeyServerClient: SimulationKeyServer {
    let remote: ENSimulation.RemoteKeyServer
    let clock: ENVirtualClock
    /// Where each device's downloads go (a folder per device).
    let downloads: URL
    let session: URLSession

    init(_ remote: ENSimulation.RemoteKeyServer, clock: ENVirtualClock, downloads: URL) {
        self.remote = remote
        self.clock = clock
        self.downloads = downloads
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        session = URLSession(configuration: configuration)
    }

    func post(_ keys: [ENTemporaryExposureKey], symptomOnsetDay: UInt32) async throws(ENError) -> ENKeyServerPostResult
    {
        try await setClock()
        var inserted = 0
        // Google's limit: at most 30 keys a request, each request with its own certificate.
        for start in stride(from: 0, to: keys.count, by: 30) {
            let batch = Array(keys[start..<min(start + 30, keys.count)])
            let request: ENPublishRequest
            if let verification = remote.verification {
                request = try await certifiedRequest(for: batch, symptomOnsetDay: symptomOnsetDay, by: verification)
            } else {
                request = ENPublishRequest(
                    temporaryExposureKeys: SimulationHealthAuthority.publishKeys(batch),
                    healthAuthorityID: remote.healthAuthorityID,
                    symptomOnsetInterval: Int32(clamping: symptomOnsetDay * ENIntervalNumberPerDay))
            }
            let (status, data) = try await self.request("v1/publish", body: PublishBody(request))
            struct Answer: Decodable {
                var insertedExposures: Int?
                var code: String?
                var error: String?
            }
            let answer = try? JSONDecoder().decode(Answer.self, from: data)
            guard status == 200, let answer, answer.code == nil else {
                throw ENError(
                    .dataInaccessible,
                    "the key server refused the keys: HTTP \(status) \(answer?.code ?? "") \(answer?.error ?? "")",
                    context: .init(file: url("v1/publish").absoluteString))
            }
            inserted += answer.insertedExposures ?? 0
        }
        return ENKeyServerPostResult(accepted: inserted, duplicates: keys.count - inserted)
    }

    /// The publish request for `keys`, certified by `verification`: its clock set to the virtual clock's moment,
    /// a code issued on its admin API, verified and certified on its device API, as the health authority and the
    /// app do.
    private func certifiedRequest(
        for keys: [ENTemporaryExposureKey], symptomOnsetDay: UInt32,
        by verification: ENSimulation.RemoteVerificationServer
    ) async throws(ENError) -> ENPublishRequest {
        let clockURL = verification.adminURL.appendingPathComponent("api/test/clock")
        try await setClock(at: clockURL, of: "verification server")
        let admin = ENVerificationHTTPTransport(baseURL: verification.adminURL, timeout: 60)
        let app = ENVerificationClient(
            apiKey: verification.deviceAPIKey,
            transport: ENVerificationHTTPTransport(baseURL: verification.serverURL, timeout: 60))
        let issueURL = verification.adminURL.appendingPathComponent(
            String(ENVerificationEndpoint.issue.path.dropFirst()))
        return try await SimulationHealthAuthority.certifiedRequest(
            for: keys, symptomOnsetDay: symptomOnsetDay, healthAuthorityID: remote.healthAuthorityID, app: app
        ) { issue throws(ENError) in
            let answer: ENVerificationHTTPResponse
            do {
                answer = try await admin.post(
                    .issue, apiKey: verification.adminAPIKey, body: try JSONEncoder().encode(issue), chaff: false)
            } catch {
                throw ENError(
                    .dataInaccessible, "cannot reach the verification server: \(error)",
                    context: .init(file: issueURL.absoluteString))
            }
            guard answer.status == 200,
                let issued = try? JSONDecoder().decode(ENIssueCodeResponse.self, from: answer.body)
            else {
                throw ENError(
                    .notAuthorized,
                    "the verification server refused to issue a code: HTTP \(answer.status) "
                        + String(decoding: answer.body.prefix(200), as: UTF8.self),
                    context: .init(file: issueURL.absoluteString))
            }
            return issued.code
        }
    }

    func publish() async throws(ENError) -> [String] {
        try await setClock()
        struct Answer: Decodable { var files: [String] }
        let (status, data) = try await request("v1/test/export", admin: true, body: [String: String]())
        guard status == 200, let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
            throw ENError(
                .dataInaccessible, "the key server did not export: HTTP \(status)",
                context: .init(file: url("v1/test/export", admin: true).absoluteString))
        }
        return answer.files
    }

    func files(
        after cursor: SimulationFileCursor, for device: String
    ) async throws(ENError) -> (urls: [URL], cursor: SimulationFileCursor) {
        let downloader = ENKeyFileDownloader(
            serverURL: remote.serverURL, exportRoot: remote.exportRoot, session: session)
        let download = try await downloader.download(
            after: cursor.lastEntry, into: downloads.appendingPathComponent(device))
        var next = cursor
        next.lastEntry = download.lastEntry
        return (download.fileURLs, next)
    }

    /// Moves the key server's test clock to the virtual clock's moment.
    private func setClock() async throws(ENError) {
        try await setClock(at: url("v1/test/clock", admin: true), of: "key server")
    }

    /// Moves the test clock at `clockURL`, of `server`, to the virtual clock's moment.
    private func setClock(at clockURL: URL, of server: String) async throws(ENError) {
        let now = clock.now.formatted(.iso8601)
        let (status, data) = try await request(clockURL, body: ["now": now], server: server)
        guard status == 200 else {
            throw ENError(
                .dataInaccessible,
                "the \(server) did not set its test clock to \(now) (is it running with --test-clock?): HTTP "
                    + "\(status) \(String(decoding: data.prefix(200), as: UTF8.self))",
                context: .init(file: clockURL.absoluteString))
        }
    }

    /// `path` on the server's public listener, or on its admin listener.
    private func url(_ path: String, admin: Bool = false) -> URL {
        (admin ? remote.adminURL : remote.serverURL).appendingPathComponent(path)
    }

    private func request<Body: Encodable>(_ path: String, admin: Bool = false, body: Body) async throws(ENError) -> (
        Int, Data
    ) {
        try await request(url(path, admin: admin), body: body, server: "key server")
    }

    /// `POST` of `body` as JSON to `target`, of `server`: the status and the body answered.
    private func request<Body: Encodable>(_ target: URL, body: Body, server: String) async throws(ENError) -> (
        Int, Data
    ) {
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do {
            request.httpBody = try JSONEncoder().encode(body)
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        } catch {
            throw ENError(
                .dataInaccessible, "cannot reach the \(server): \(error.localizedDescription)",
                context: .init(file: target.absoluteString))
        }
    }
}

/// Google's publish request, as the simulation sends it: the certificate and its HMAC key only when there are.
private struct PublishBody: Encodable {
    struct Key: Encodable {
        var key: String
        var rollingStartNumber: Int32
        var rollingPeriod: Int32
        var transmissionRisk: Int
    }
    var temporaryExposureKeys: [Key]
    var healthAuthorityID: String
    var verificationPayload: String?
    var hmacKey: String?
    var symptomOnsetInterval: Int32

    init(_ request: ENPublishRequest) {
        temporaryExposureKeys = request.temporaryExposureKeys.map {
            Key(
                key: $0.key, rollingStartNumber: $0.rollingStartNumber, rollingPeriod: $0.rollingPeriod,
                transmissionRisk: $0.transmissionRisk)
        }
        healthAuthorityID = request.healthAuthorityID
        verificationPayload = request.verificationPayload.isEmpty ? nil : request.verificationPayload
        hmacKey = request.hmacKey.isEmpty ? nil : request.hmacKey
        symptomOnsetInterval = request.symptomOnsetInterval
    }
}
