internal import ENCore
internal import ENCrypto
internal import ENKeyServer
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
        // Google's limit: at most 30 keys a request.
        for start in stride(from: 0, to: keys.count, by: 30) {
            let batch = Array(keys[start..<min(start + 30, keys.count)])
            let body = PublishBody(
                temporaryExposureKeys: batch.map { key in
                    PublishBody.Key(
                        key: key.keyData.base64EncodedString(), rollingStartNumber: Int(key.rollingStartNumber),
                        rollingPeriod: Int(key.rollingPeriod), transmissionRisk: Int(key.transmissionRiskLevel))
                },
                healthAuthorityID: remote.healthAuthorityID,
                symptomOnsetInterval: Int(symptomOnsetDay) * Int(ENIntervalNumberPerDay))
            let (status, data) = try await request("v1/publish", body: body)
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

    /// Moves the server's test clock to the virtual clock's moment.
    private func setClock() async throws(ENError) {
        let now = clock.now.formatted(.iso8601)
        let (status, data) = try await request("v1/test/clock", admin: true, body: ["now": now])
        guard status == 200 else {
            throw ENError(
                .dataInaccessible,
                "the key server did not set its test clock to \(now) (is it running with --test-clock?): HTTP "
                    + "\(status) \(String(decoding: data.prefix(200), as: UTF8.self))",
                context: .init(file: url("v1/test/clock", admin: true).absoluteString))
        }
    }

    /// `path` on the server's public listener, or on its admin listener.
    private func url(_ path: String, admin: Bool = false) -> URL {
        (admin ? remote.adminURL : remote.serverURL).appendingPathComponent(path)
    }

    private func request<Body: Encodable>(_ path: String, admin: Bool = false, body: Body) async throws(ENError) -> (
        Int, Data
    ) {
        var request = URLRequest(url: url(path, admin: admin))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do {
            request.httpBody = try JSONEncoder().encode(body)
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        } catch {
            throw ENError(
                .dataInaccessible, "cannot reach the key server: \(error.localizedDescription)",
                context: .init(file: url(path, admin: admin).absoluteString))
        }
    }
}

/// Google's publish request, as the simulation sends it.
private struct PublishBody: Encodable {
    struct Key: Encodable {
        var key: String
        var rollingStartNumber: Int
        var rollingPeriod: Int
        var transmissionRisk: Int
    }
    var temporaryExposureKeys: [Key]
    var healthAuthorityID: String
    var symptomOnsetInterval: Int
}
