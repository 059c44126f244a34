internal import ENCore
internal import ENKeyServer
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

/// The in-process `ENDiagnosisKeyServer` of a run: the same publish rules as the remote server's HTTP API.
struct InProcessKeyServer: SimulationKeyServer {
    let server: ENDiagnosisKeyServer
    let runner: SimulationRunner

    func post(_ keys: [ENTemporaryExposureKey], symptomOnsetDay: UInt32) async throws(ENError) -> ENKeyServerPostResult
    {
        var total = ENKeyServerPostResult()
        // Google's limit, as over HTTP: at most 30 keys a request.
        for start in stride(from: 0, to: keys.count, by: 30) {
            let result = try await server.postDiagnosisKeys(
                Array(keys[start..<min(start + 30, keys.count)]),
                symptomOnsetInterval: symptomOnsetDay * ENIntervalNumberPerDay)
            total.accepted += result.accepted
            total.duplicates += result.duplicates + result.revised + result.rejected
        }
        return total
    }

    func publish() async throws(ENError) -> [String] {
        try await server.publish().map(\.name)
    }

    func files(
        after cursor: SimulationFileCursor, for device: String
    ) async throws(ENError) -> (urls: [URL], cursor: SimulationFileCursor) {
        let files = try await server.files(startingAt: cursor.nextIndex)
        var urls: [URL] = []
        for file in files { urls.append(try runner.download(file)) }
        var next = cursor
        if let last = files.last { next.nextIndex = last.index + 1 }
        return (urls, next)
    }
}
