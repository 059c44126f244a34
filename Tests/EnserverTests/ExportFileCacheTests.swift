import ENCore
import ENCrypto
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import EnserverKit
import Foundation
import Testing

@Suite("enserver: cacheable downloads (ETag, Cache-Control, 304) answered from memory")
struct ExportFileCacheTests {
    /// A server with one exported file, its routes' cache over a storage that counts the reads of files and names.
    struct Cached {
        let sut: ServerUnderTest
        let counting: CountingExportStorage
        let http: KeyServerHTTP
        let file: ENKeyServerFile

        /// How far the cache's clock has moved from the instant the cache was made; it moves only when a test moves it,
        /// so a slow machine cannot age the index.
        let offset = Locked(Duration.zero)

        init(indexLifetime: Duration) async throws {
            sut = try ServerUnderTest()
            _ = try await sut.live { client in try await client.publish(publishBody(count: 5)) }
            sut.clock.advance(hours: 5)
            let files = try await sut.server.publish()
            file = try #require(files.first)
            counting = CountingExportStorage(sut.store)
            let exporter = ENKeyServerExporter(
                storage: counting, configuration: sut.server.configuration, clock: { [clock = sut.clock] in clock.now })
            http = KeyServerHTTP(
                exporter: exporter, publish: sut.http.publish,
                cache: ExportFileCache(
                    exporter: exporter, indexLifetime: indexLifetime,
                    now: { [offset, start = ContinuousClock.now] in start + offset.withLock { $0 } }))
        }

        var path: String { "/exposureKeyExport-US/" + file.name }
    }

    @Test("a zip: immutable for a year, a strong ETag of its bytes, 304 to its own ETag (also weak, in a list, *)")
    func zipRevalidation() async throws {
        let cached = try await Cached(indexLifetime: .seconds(60))
        let path = cached.path
        let (first, conditional) = try await cached.http.withRoutes { client in
            let first = try await client.request(path)
            let etag = try #require(first.header("etag"))
            var conditional: [Int: [String]] = [:]
            for condition in [etag, "W/" + etag, "\"other\", " + etag, "*", "\"other\"", "W/\"other\""] {
                let reply = try await client.request(path, headers: ["If-None-Match": condition])
                conditional[reply.status, default: []].append(condition)
                if reply.status == 304 {
                    #expect(reply.body.isEmpty && reply.header("etag") == etag)
                    #expect(reply.header("cache-control") == "public, max-age=31536000, immutable")
                } else {
                    #expect(reply.body == cached.file.data)
                }
            }
            return (first, conditional)
        }
        #expect(first.status == 200 && first.body == cached.file.data)
        #expect(first.header("content-type") == "application/zip")
        #expect(first.header("cache-control") == "public, max-age=31536000, immutable")
        let digest = SHA256.hash(cached.file.data).map { String(format: "%02x", $0) }.joined()
        #expect(first.header("etag") == "\"\(digest)\"")
        #expect(conditional[304]?.count == 4 && conditional[200] == ["\"other\"", "W/\"other\""], "\(conditional)")
        // Seven requests for the file: the storage read it once, and listed the names once.
        #expect(cached.counting.fileReads == 1 && cached.counting.nameReads == 1)
    }

    @Test("index.txt: a short max-age, an ETag that changes when a file is added, 304 while it does not")
    func indexRevalidation() async throws {
        let cached = try await Cached(indexLifetime: .seconds(60))
        let before = try await cached.http.withRoutes { client in
            try await client.request("/exposureKeyExport-US/index.txt")
        }
        #expect(before.status == 200 && before.header("cache-control") == "public, max-age=60")
        let etag = try #require(before.header("etag"))
        #expect(before.text == "exposureKeyExport-US/" + cached.file.name)
        // Another batch, cut by another instance: listed after the cache forgets the index (here by hand; in
        // `serve`, after --index-refresh, or at once on the instance that cut it).
        _ = try await cached.sut.live { client in try await client.publish(publishBody(count: 3, first: 6)) }
        cached.sut.clock.advance(hours: 4)
        let more = try await cached.sut.server.publish()
        #expect(more.count == 1)
        let (stale, fresh, unchanged) = try await cached.http.withRoutes { client in
            let stale = try await client.request(
                "/exposureKeyExport-US/index.txt", headers: ["If-None-Match": etag])
            cached.http.cache.invalidate()
            let fresh = try await client.request("/exposureKeyExport-US/index.txt", headers: ["If-None-Match": etag])
            let unchanged = try await client.request(
                "/exposureKeyExport-US/index.txt", headers: ["If-None-Match": fresh.header("etag") ?? ""])
            return (stale, fresh, unchanged)
        }
        #expect(stale.status == 304)
        #expect(fresh.status == 200 && fresh.header("etag") != etag)
        #expect(fresh.text.split(separator: "\n").count == 2)
        #expect(unchanged.status == 304 && unchanged.body.isEmpty)
    }

    @Test(
        "names the index does not list answer 404 without a storage read; a file retention dropped stops being served")
    func unknownAndExpired() async throws {
        let cached = try await Cached(indexLifetime: .seconds(60))
        let path = cached.path
        let (served, unknown) = try await cached.http.withRoutes { client in
            let served = try await client.request(path).status
            var unknown: [Int] = []
            for n in 0..<20 { unknown.append(try await client.request("/exposureKeyExport-US/\(n).zip").status) }
            return (served, unknown)
        }
        #expect(served == 200 && unknown == Array(repeating: 404, count: 20))
        #expect(cached.counting.fileReads == 1 && cached.counting.nameReads == 1)
        // Fifteen days on, retention drops the batch: once the index is read again the file is gone.
        cached.sut.clock.advance(hours: 15 * 24)
        _ = try await cached.sut.server.deleteExpired()
        cached.http.cache.invalidate()
        let after = try await cached.http.withRoutes { client in try await client.request(path) }
        #expect(after.status == 404)
    }

    @Test("with --index-refresh, another instance's files are listed once the index is older than the refresh")
    func refreshInterval() async throws {
        let cached = try await Cached(indexLifetime: .seconds(5))
        _ = try await cached.http.withRoutes { client in try await client.request("/health") }
        _ = try await cached.http.withRoutes { client in try await client.request("/health") }
        #expect(cached.counting.nameReads == 1)
        cached.offset.withLock { $0 = .seconds(6) }
        let health = try await cached.http.withRoutes { client in try await client.request("/health") }
        #expect(health.status == 200 && health.text == "ok")
        #expect(cached.counting.nameReads == 2)
    }
}

/// An export storage that forwards to another and counts the reads `GET` could cause.
final class CountingExportStorage: ENKeyServerExportStorage {
    let base: any ENKeyServerExportStorage
    private let counts = Locked((files: 0, names: 0))

    init(_ base: any ENKeyServerExportStorage) { self.base = base }

    var fileReads: Int { counts.withLock { $0.files } }
    var nameReads: Int { counts.withLock { $0.names } }

    func claimExportBatch(
        _ configuration: ENKeyServerConfiguration, owner: String, at date: Date
    ) async throws(ENError) -> ENKeyServerExportLease? {
        try await base.claimExportBatch(configuration, owner: owner, at: date)
    }

    func exportBatchContents(_ lease: ENKeyServerExportLease) async throws(ENError) -> ENKeyServerExportContents {
        try await base.exportBatchContents(lease)
    }

    func completeExportBatch(
        _ lease: ENKeyServerExportLease, files: [Data], paddingKeys: [ENTemporaryExposureKey],
        contents: ENKeyServerExportContents, at date: Date
    ) async throws(ENError) -> [ENKeyServerFile] {
        try await base.completeExportBatch(lease, files: files, paddingKeys: paddingKeys, contents: contents, at: date)
    }

    func releaseExportBatch(_ lease: ENKeyServerExportLease) async throws(ENError) {
        try await base.releaseExportBatch(lease)
    }

    func exportFileNames(of exportName: String, startingAfter cutoff: Date) async throws(ENError) -> [String] {
        counts.withLock { $0.names += 1 }
        return try await base.exportFileNames(of: exportName, startingAfter: cutoff)
    }

    func exportFiles(of exportName: String, startingAt index: Int) async throws(ENError) -> [ENKeyServerFile] {
        try await base.exportFiles(of: exportName, startingAt: index)
    }

    func exportFile(of exportName: String, named name: String) async throws(ENError) -> ENKeyServerFile? {
        counts.withLock { $0.files += 1 }
        return try await base.exportFile(of: exportName, named: name)
    }

    func exportFileNames(of exportName: String, endingAtOrBefore cutoff: Date) async throws(ENError) -> [String] {
        try await base.exportFileNames(of: exportName, endingAtOrBefore: cutoff)
    }

    func deleteExpired(before cutoff: Date) async throws(ENError) -> Int {
        try await base.deleteExpired(before: cutoff)
    }
}
