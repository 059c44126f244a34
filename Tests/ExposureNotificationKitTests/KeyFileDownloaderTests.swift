import ENCore
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

@Suite("ENKeyFileDownloader: index.txt and the files it lists")
struct KeyFileDownloaderTests {
    let server = URL(string: "https://cdn.example.org/keys")!

    /// A downloader over a fixed set of paths (relative to `server`); any other path fails as a 404 would.
    func downloader(_ files: [String: Data], root: String = "exposureKeyExport-US") -> ENKeyFileDownloader {
        let base = server.absoluteString
        return ENKeyFileDownloader(serverURL: server, exportRoot: root) {
            (url: URL, maximumBytes: Int) async throws(ENError) -> Data in
            let path = String(url.absoluteString.dropFirst(base.count + 1))
            guard let data = files[path] else {
                throw ENError(
                    .dataInaccessible, "the server answered HTTP 404", context: .init(file: url.absoluteString))
            }
            guard data.count <= maximumBytes else {
                throw ENError(.badFormat, "over the limit", context: .init(file: url.absoluteString))
            }
            return data
        }
    }

    let index = """
        exposureKeyExport-US/1585699200-1585713600-00001.zip
        exposureKeyExport-US/1585713600-1585728000-00001.zip
        exposureKeyExport-US/1585713600-1585728000-00002.zip

        """

    var files: [String: Data] {
        var files = ["exposureKeyExport-US/index.txt": Data(index.utf8)]
        for line in index.split(separator: "\n") { files[String(line)] = Data("zip of \(line)".utf8) }
        return files
    }

    @Test("all files at first, then only the entries after the last one processed, in index order")
    func newEntries() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let downloader = downloader(files)
        #expect(downloader.indexURL.absoluteString == "https://cdn.example.org/keys/exposureKeyExport-US/index.txt")
        let first = try await downloader.download(after: nil, into: directory.url)
        #expect(first.entries.count == 3)
        #expect(first.fileURLs.map(\.lastPathComponent) == first.entries.map { String($0.split(separator: "/")[1]) })
        #expect(first.lastEntry == "exposureKeyExport-US/1585713600-1585728000-00002.zip")
        for (entry, url) in zip(first.entries, first.fileURLs) {
            #expect(try Data(contentsOf: url) == Data("zip of \(entry)".utf8))
        }
        let again = try await downloader.download(after: first.lastEntry, into: directory.url)
        #expect(again.entries.isEmpty && again.fileURLs.isEmpty && again.lastEntry == first.lastEntry)
        let later = try await downloader.download(
            after: "exposureKeyExport-US/1585699200-1585713600-00001.zip", into: directory.url)
        #expect(later.entries.count == 2)
        // An entry dropped from the index by retention still orders what is new.
        let dropped = try await downloader.download(
            after: "exposureKeyExport-US/1585700000-1585713600-00001.zip", into: directory.url)
        #expect(dropped.entries.count == 2)
    }

    @Test("a bad index or a missing file is an error naming it, and the caller's last entry stays valid")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        for (line, text) in [
            ("https://evil.example.org/a.zip", "relative path"), ("/etc/a.zip", "relative path"),
            ("exposureKeyExport-US/../a.zip", "relative path"), ("exposureKeyExport-US//a.zip", "relative path"),
            ("exposureKeyExport-US/a.txt", "relative path"), ("exposureKeyExport-US/a b.zip", "relative path"),
            ("x/1585699200-1585713600-00001.zip", "twice"),
        ] {
            var bad = files
            bad["exposureKeyExport-US/index.txt"] = Data((index + line + "\n").utf8)
            await #expect {
                _ = try await downloader(bad).download(after: nil, into: directory.url)
            } throws: { error in
                let error = try #require(error as? ENError)
                return error.code == .badFormat && error.reason.contains(text) && error.context.index == 3
                    && error.context.file?.hasSuffix("index.txt") == true
            }
        }
        var binary = files
        binary["exposureKeyExport-US/index.txt"] = Data([0xFF, 0xFE, 0x00])
        await #expect(throws: ENError(.badFormat)) {
            _ = try await downloader(binary).download(after: nil, into: directory.url)
        }
        var missing = files
        missing["exposureKeyExport-US/1585713600-1585728000-00001.zip"] = nil
        await #expect {
            _ = try await downloader(missing).download(after: nil, into: directory.url)
        } throws: { error in
            let error = try #require(error as? ENError)
            return error.code == .dataInaccessible && error.context.file?.hasSuffix("1585728000-00001.zip") == true
        }
        var limited = downloader(files)
        limited.maximumFileBytes = 10
        await #expect(throws: ENError(.badFormat)) {
            _ = try await limited.download(after: nil, into: directory.url)
        }
        await #expect(throws: ENError(.dataInaccessible)) {
            _ = try await downloader(files, root: "elsewhere").download(after: nil, into: directory.url)
        }
    }

    @Test("over HTTP: a server that is not there is dataInaccessible naming the index's URL")
    func unreachable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let downloader = ENKeyFileDownloader(serverURL: URL(string: "http://127.0.0.1:9")!)
        await #expect {
            _ = try await downloader.download(after: nil, into: directory.url)
        } throws: { error in
            let error = try #require(error as? ENError)
            return error.code == .dataInaccessible && error.context.file == "http://127.0.0.1:9/index.txt"
        }
    }
}

@Suite("ENKeyFileDownloader over HTTP: a body that never ends")
struct KeyFileDownloaderStreamingTests {
    @Test("a download that never ends stops at the limit while streaming, as badFormat naming the URL")
    func endlessBodyStopsAtTheLimit() async throws {
        // The server's cap is far above what reaches the client before its cancellation lands (URLSession keeps
        // reading while the cancellation travels to its queue: about 260 MB on quiet loopback, over 1 GB on a loaded
        // machine at full speed, so the server slows to about 64 MB/s after its first 32 MiB), and far below what a
        // whole-body download writes. Under the sanitizers (EN_TEST_REDUCED) URLSession's queues are slowed so much
        // that the cancellation can land after any cap loopback reaches first: there the cap is small and only the
        // client's side is checked (it fails at the limit, holding no more than it).
        let cap = TestScale.pick(1 << 30, reduced: 64 << 20)
        let server = try EndlessHTTPServer(cap: cap)
        var downloader = ENKeyFileDownloader(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!)
        downloader.maximumIndexBytes = 1 << 20
        await #expect {
            _ = try await downloader.entries()
        } throws: { error in
            let error = try #require(error as? ENError)
            return error.code == .badFormat && error.context.file == "http://127.0.0.1:\(server.port)/index.txt"
        }
        let sent = server.bytesSent()
        if !TestScale.isReduced {
            #expect(
                sent < cap, "the client read the endless body to the server's cap instead of stopping at the limit")
        }
    }
}
