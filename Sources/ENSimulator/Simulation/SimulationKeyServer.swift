internal import ENCore
internal import ENKeyServer
internal import ENVerificationServer
internal import Foundation

/// Where a device is in the key server's list of files: the next file index (in process) or the last `index.txt`
/// entry processed (remote).
struct SimulationFileCursor: Codable, Hashable, Sendable {
    var nextIndex = 0
    var lastEntry: String?
}

/// What the simulation asks of its key server, in process or over HTTP.
protocol SimulationKeyServer: Sendable {
    /// Stores the keys a device shares (stamped with their report type, transmission risk and days since onset),
    /// at the virtual clock's moment.
    func post(_ keys: [ENTemporaryExposureKey], symptomOnsetDay: UInt32) async throws(ENError) -> ENKeyServerPostResult
    /// Cuts the batches due at the virtual clock's moment; the new files' names.
    func publish() async throws(ENError) -> [String]
    /// Local copies of the files published after `cursor`, for `device`, and the cursor after them.
    func files(
        after cursor: SimulationFileCursor, for device: String
    ) async throws(ENError) -> (urls: [URL], cursor: SimulationFileCursor)
}

/// The in-process `ENDiagnosisKeyServer` of a run, closed as `enserver --verifier certificate` is: keys reach it
/// through Google's publish API (`ENPublishHandler`) with a certificate from the run's health authority
/// (``SimulationHealthAuthority``), never through a trusted side door.
struct InProcessKeyServer: SimulationKeyServer {
    let server: ENDiagnosisKeyServer
    let runner: SimulationRunner
    /// Who certifies the keys; the publish API trusts its certificate key.
    let authority: SimulationHealthAuthority
    /// The server's files as last listed, and the server's moment then: what a CDN in front of the server's
    /// downloads would serve. Every phone asks for the files right after a publication, at the same virtual
    /// moment, and the list changes only with a publication or with the moment (retention): the phones share
    /// one listing instead of each reading every new file's row from the server's database.
    private let listing = Locked<(at: Date, files: [ENKeyServerFile])?>(nil)

    /// The publish API over the server's storage, rules and clock, with the health authority's app. The app keeps
    /// no revision token, so it may send stored keys again (Google's `BypassRevisionToken`): they count as
    /// duplicates.
    var handler: ENPublishHandler {
        var rules = server.rules
        rules.authorizedApps = authority.authorizedApps.map {
            var app = $0
            app.bypassesRevisionToken = true
            return app
        }
        rules.revisionTokenKeys = authority.revisionTokenKeys
        if rules.defaultRegion == nil { rules.defaultRegion = server.configuration.region }
        return ENPublishHandler(storage: server.storage, configuration: rules, clock: server.clock)
    }

    func post(_ keys: [ENTemporaryExposureKey], symptomOnsetDay: UInt32) async throws(ENError) -> ENKeyServerPostResult
    {
        var total = ENKeyServerPostResult()
        let handler = handler
        // Google's limit, as over HTTP: at most 30 keys a request, each request with its own certificate.
        for start in stride(from: 0, to: keys.count, by: 30) {
            let part = Array(keys[start..<min(start + 30, keys.count)])
            let request = try await authority.certifiedRequest(for: part, symptomOnsetDay: symptomOnsetDay)
            let reply = await handler.publish(request)
            guard reply.status == 200 else {
                throw ENError(
                    .badParameter,
                    "the publish API refused the keys: \(reply.status) \(reply.response.code?.rawValue ?? "") "
                        + reply.response.error, context: .init(section: "posted keys"))
            }
            total.accepted += reply.response.insertedExposures
            total.duplicates += part.count - reply.response.insertedExposures
        }
        return total
    }

    func publish() async throws(ENError) -> [String] {
        defer { listing.withLock { $0 = nil } }
        return try await server.publish().map(\.name)
    }

    func files(
        after cursor: SimulationFileCursor, for device: String
    ) async throws(ENError) -> (urls: [URL], cursor: SimulationFileCursor) {
        let now = server.clock()
        var listed = listing.withLock { $0.flatMap { $0.at == now ? $0.files : nil } }
        if listed == nil {
            let files = try await server.files(startingAt: 0)
            listing.withLock { $0 = (now, files) }
            listed = files
        }
        let files = (listed ?? []).filter { $0.index >= cursor.nextIndex }
        var urls: [URL] = []
        for file in files { urls.append(try runner.download(file)) }
        var next = cursor
        if let last = files.last { next.nextIndex = last.index + 1 }
        return (urls, next)
    }
}
