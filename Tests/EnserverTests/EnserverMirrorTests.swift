import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENTestSupport
import EnserverKit
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of `folder` that a CDN would serve (not the mirror's hidden state, lock and temporary files), by
/// name.
func servedFiles(_ folder: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !name.hasPrefix(".") {
        files[name] = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
    }
    return files
}

/// What a key server's export folder serves: its `index.txt` and the files it lists, by name. (An export
/// directory may also hold a file its index no longer lists, until retention removes it.)
func listedFiles(_ folder: String, root: String) throws -> [String: Data] {
    let index = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent("index.txt"))
    var files = ["index.txt": index]
    for line in String(decoding: index, as: UTF8.self).split(separator: "\n") {
        let name = String(line.dropFirst(root.count + 1))
        files[name] = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
    }
    return files
}

/// Signed export files of a key server on `signingKey` (key id 310, v1): keys published every 4 hours, `rounds`
/// times, then every batch due cut.
func signedExportFiles(rounds: Int, signingKey: P256SigningKey) async throws -> [ENKeyServerFile] {
    let sut = try ServerUnderTest(signingKey: signingKey)
    var files: [ENKeyServerFile] = []
    for round in 0..<rounds {
        let now = sut.clock.now
        let reply = try await sut.live { client in
            try await client.publish(publishBody(count: 2, first: 1 + 2 * round, at: now))
        }
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        sut.clock.advance(hours: 4)
        files += try await sut.server.publish()
    }
    sut.clock.advance(hours: 12)
    files += try await sut.server.publish()
    return files
}

@Suite("enserver mirror: another key server's files, verified, in a directory")
struct EnserverMirrorTests {
    static let root = "exposureKeyExport-US"

    /// The key server's public key as a PEM file in `directory`.
    func publicKeyFile(_ key: P256SigningKey, in directory: TemporaryDirectory, name: String = "public.pem") throws
        -> String
    {
        let path = directory.path(name)
        try (try key.publicKey).pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs `enserver mirror ARGUMENTS` as a process to its end.
    func mirrorProcess(_ arguments: [String]) async throws -> ChildProcess.Outcome {
        try await ChildProcess.runAsync(
            try #require(ExternalTool.enserver.path), ["mirror"] + arguments, timeout: .seconds(300))
    }

    @Test(
        "a mirror of a live `enserver serve` follows it for a simulated week and past retention: after every step its directory equals the source's",
        .enabled(if: ExternalTool.enserver.isAvailable))
    func followsALiveServer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let signingKey = try P256SigningKey()
        let pem = directory.path("signing.pem")
        try writeSecret(signingKey.pemRepresentation, toFile: pem)
        let sourceDirectory = directory.path("source")
        let server = try await EnserverProcess.start(
            [
                "--database", directory.path("keys.sqlite"), "--region", "US", "--signing-key", pem, "--key-id", "310",
                "--health-authority-id", "com.example.app", "--ephemeral-revision-tokens", "--verifier", "accept-all",
                "--export-root", Self.root, "--export-dir", sourceDirectory,
                "--test-clock", "2026-05-09T00:00:00Z",
            ], in: directory)
        do {
            try await follow(server, signingKey: signingKey, in: directory)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// ``followsALiveServer()``'s steps against the running `server`.
    func follow(_ server: EnserverProcess, signingKey: P256SigningKey, in directory: TemporaryDirectory) async throws {
        let sourceDirectory = directory.path("source")
        let mirrorDirectory = directory.path("mirror")
        let start = Date(timeIntervalSince1970: 1_778_284_800)  // 2026-05-09T00:00:00Z
        let client = LoopbackClient(port: server.port)
        let admin = LoopbackClient(port: try #require(server.adminPort))
        let json = ["Content-Type": "application/json"]
        let arguments = [
            "--source", "http://127.0.0.1:\(server.port)", "--source-root", Self.root, "--export-dir", mirrorDirectory,
            "--public-key", try publicKeyFile(signingKey, in: directory),
        ]
        // Days 0 to 6 publish keys; days 10, 15, 20 and 25 only move the clock, so retention drops the files.
        var largest = 0
        var dropped = false
        for (step, day) in [0, 1, 2, 3, 4, 5, 6, 10, 15, 20, 25].enumerated() {
            let now = start.addingTimeInterval(Double(day) * 86_400 + 3_600)
            let moved = try await admin.request(
                "/v1/test/clock", method: "POST", headers: json,
                body: Data(#"{"now": "\#(now.formatted(.iso8601))"}"#.utf8))
            #expect(moved.status == 200, "\(moved.text)")
            if day <= 6 {
                let reply = try await client.publish(publishBody(count: 3, first: 1 + 3 * step, at: now))
                #expect(reply.status == 200, "\(reply.text.prefix(300))")
                // The batch is due 2 hours after its 4-hour window: cut it 8 hours on.
                let later = now.addingTimeInterval(8 * 3_600)
                _ = try await admin.request(
                    "/v1/test/clock", method: "POST", headers: json,
                    body: Data(#"{"now": "\#(later.formatted(.iso8601))"}"#.utf8))
            }
            let exported = try await admin.request(
                "/v1/test/export", method: "POST", headers: json, body: Data("{}".utf8))
            #expect(exported.status == 200, "\(exported.text)")
            let outcome = try await mirrorProcess(arguments)
            #expect(outcome.termination.exitStatus == 0, "\(String(decoding: outcome.standardError, as: UTF8.self))")
            let source = try listedFiles("\(sourceDirectory)/\(Self.root)", root: Self.root)
            let served = try await client.request("/\(Self.root)/index.txt")
            #expect(served.status == 200 && served.body == source["index.txt"])
            let mirrored = try servedFiles("\(mirrorDirectory)/\(Self.root)")
            #expect(mirrored == source, "day \(day): \(mirrored.keys.sorted()) vs \(source.keys.sorted())")
            #expect(source["index.txt"] != nil)
            if source.count < largest { dropped = true }
            largest = max(largest, source.count)
        }
        // The week made files and retention removed some: the mirror followed both ways.
        #expect(largest > 3)
        #expect(dropped)
    }

    @Test("a tampered file and a file signed with another key are refused, the rest mirrored; fixed, they are taken")
    func refusesWhatDoesNotVerify() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let key = try P256SigningKey()
        let files = try await signedExportFiles(rounds: 3, signingKey: key)
        try #require(files.count >= 3)
        let foreign = try #require(try await signedExportFiles(rounds: 1, signingKey: P256SigningKey()).first)
        let archive = try ENExportArchive(data: files[1].data)
        var binary = archive.exportBinary
        binary[binary.count - 1] ^= 0x01
        let tampered = try ENExportArchive(exportBinary: binary, signatureFile: archive.signatureFile).zipData()
        let server = StaticFileServer()
        let names = [files[0].name, "tampered-00001.zip", "foreign-00001.zip", files[2].name]
        server.set("\(Self.root)/\(names[0])", files[0].data)
        server.set("\(Self.root)/\(names[1])", tampered)
        server.set("\(Self.root)/\(names[2])", foreign.data)
        server.set("\(Self.root)/\(names[3])", files[2].data)
        server.set("\(Self.root)/index.txt", Data(names.map { "\(Self.root)/\($0)" }.joined(separator: "\n").utf8))
        let trusted = ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try key.publicKey)
        let folder = directory.path(Self.root)
        try await server.withRunning { url in
            let mirror = try ENExportMirror(
                source: url, sourceRoot: Self.root, directory: directory.url, trustedKeys: [trusted])
            let first = try await mirror.run()
            #expect(first.published == [names[0], names[3]])
            #expect(first.refused.map(\.name) == [names[1], names[2]])
            #expect(first.listed == [names[0], names[3]])
            let served = try servedFiles(folder)
            #expect(Set(served.keys) == [names[0], names[3], "index.txt"])
            #expect(served[names[0]] == files[0].data && served[names[3]] == files[2].data)
            #expect(
                served["index.txt"] == Data("\(Self.root)/\(names[0])\n\(Self.root)/\(names[3])".utf8))
            // The source mends the tampered file: the next run takes it, in the index's order, and nothing else.
            server.set("\(Self.root)/\(names[1])", files[1].data)
            let second = try await mirror.run()
            #expect(second.published == [names[1]])
            #expect(second.refused.map(\.name) == [names[2]])
            #expect(second.listed == [names[0], names[1], names[3]])
            #expect(try servedFiles(folder)[names[1]] == files[1].data)
        }
    }

    @Test("an index naming a file outside the source's root is refused whole: nothing is fetched or written")
    func refusesAnIndexOutsideTheRoot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let key = try P256SigningKey()
        let files = try await signedExportFiles(rounds: 1, signingKey: key)
        let file = try #require(files.first)
        let trusted = ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try key.publicKey)
        let server = StaticFileServer()
        server.set("\(Self.root)/\(file.name)", file.data)
        try await server.withRunning { url in
            let mirror = try ENExportMirror(
                source: url, sourceRoot: Self.root, directory: directory.url, trustedKeys: [trusted])
            for bad in [
                "\(Self.root)/../x.zip", "/etc/passwd", "other/\(file.name)", "\(Self.root)/a/b.zip",
                "http://127.0.0.1:1/\(Self.root)/x.zip", "\(Self.root)/.hidden.zip", "\(Self.root)/",
                "\(Self.root)/index.txt",
            ] {
                server.set(
                    "\(Self.root)/index.txt", Data("\(Self.root)/\(file.name)\n\(bad)\n".utf8))
                let error = await #expect(throws: ENError.self) { try await mirror.run() }
                #expect(error?.code == .badFormat && "\(error.map(String.init(describing:)) ?? "")".contains("line 2"))
                #expect(try servedFiles(directory.path(Self.root)).isEmpty, "\(bad)")
            }
            // A bare name with the root and a trailing CRLF is fine.
            server.set("\(Self.root)/index.txt", Data("\(Self.root)/\(file.name)\r\n".utf8))
            #expect(try await mirror.run().listed == [file.name])
        }
    }

    @Test("an index over the limit is refused")
    func boundedIndex() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let server = StaticFileServer()
        server.set("\(Self.root)/index.txt", Data(repeating: UInt8(ascii: "a"), count: 2_000))
        let trusted = ENExportVerificationKey(keyID: nil, keyVersion: nil, publicKey: try P256SigningKey().publicKey)
        try await server.withRunning { url in
            var mirror = try ENExportMirror(
                source: url, sourceRoot: Self.root, directory: directory.url, trustedKeys: [trusted])
            mirror.maximumIndexBytes = 1_000
            let error = await #expect(throws: ENError.self) { try await mirror.run() }
            #expect(error?.reason.contains("over the limit") == true, "\(String(describing: error))")
        }
    }

    @Test("a run finds the directory locked by another: it does nothing, as Google's mirror skips a locked mirror")
    func skipsWhenLocked() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let server = StaticFileServer()
        server.set("\(Self.root)/index.txt", Data())
        let trusted = ENExportVerificationKey(keyID: nil, keyVersion: nil, publicKey: try P256SigningKey().publicKey)
        let lockPath = directory.path(".enserver-mirror.lock")
        let fd = open(lockPath, O_RDWR | O_CREAT, 0o644)
        try #require(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        try await server.withRunning { url in
            let mirror = try ENExportMirror(
                source: url, sourceRoot: Self.root, directory: directory.url, trustedKeys: [trusted])
            let held = try await mirror.run()
            #expect(held.skippedLocked)
            #expect(!FileManager.default.fileExists(atPath: directory.path("\(Self.root)/index.txt")))
            flock(fd, LOCK_UN)
            let free = try await mirror.run()
            #expect(!free.skippedLocked)
            #expect(try servedFiles(directory.path(Self.root)) == ["index.txt": Data()])
        }
        close(fd)
    }

    @Test("with Google's filename rewrite, every file gets a new increasing name once; a rerun adds no duplicate")
    func filenameRewrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let key = try P256SigningKey()
        let files = try await signedExportFiles(rounds: 3, signingKey: key)
        try #require(files.count >= 3)
        let server = StaticFileServer()
        for file in files { server.set("\(Self.root)/\(file.name)", file.data) }
        let index = files.map { "\(Self.root)/\($0.name)" }
        server.set("\(Self.root)/index.txt", Data(index.joined(separator: "\n").utf8))
        let trusted = ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try key.publicKey)
        let folder = directory.path("cdn")
        try await server.withRunning { url in
            let mirror = try ENExportMirror(
                source: url, sourceRoot: Self.root, directory: directory.url, exportRoot: "cdn",
                filenameRewrite: try ENMirrorFilenameRewrite(pattern: "[timestamp]-[uuid].zip"),
                trustedKeys: [trusted])
            let first = try await mirror.run()
            #expect(first.published.count == files.count && first.listed == first.published)
            let stamps = first.listed.map { Int($0.prefix(while: \.isNumber)) ?? 0 }
            #expect(stamps == stamps.sorted() && Set(stamps).count == stamps.count)
            #expect(first.listed.allSatisfy { $0.hasSuffix(".zip") && $0.count == 10 + 1 + 36 + 4 })
            var served = try servedFiles(folder)
            #expect(first.listed.map { served[$0] } == files.map(\.data))
            #expect(served["index.txt"] == Data(first.listed.map { "cdn/\($0)" }.joined(separator: "\n").utf8))
            // A rerun keeps every name.
            let second = try await mirror.run()
            #expect(second.published.isEmpty && second.listed == first.listed)
            #expect(try servedFiles(folder) == served)
            // The source drops its first file: its rewritten copy goes.
            server.set("\(Self.root)/index.txt", Data(index.dropFirst().joined(separator: "\n").utf8))
            let third = try await mirror.run()
            #expect(third.removed == [first.listed[0]] && third.listed == Array(first.listed.dropFirst()))
            served = try servedFiles(folder)
            #expect(served[first.listed[0]] == nil && served.count == files.count)
        }
        #expect(throws: ENError.self) { try ENMirrorFilenameRewrite(pattern: "static.zip") }
        #expect(throws: ENError.self) { try ENMirrorFilenameRewrite(pattern: "../[uuid].zip") }
    }

    @Test(
        "kill -9 of `enserver mirror` at any moment leaves index.txt listing only whole files; a rerun converges",
        .enabled(if: ExternalTool.enserver.isAvailable))
    func killDuringARun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let key = try P256SigningKey()
        let files = try await signedExportFiles(rounds: 6, signingKey: key)
        try #require(files.count >= 6)
        let server = StaticFileServer(delay: .milliseconds(40))
        let all = files.map { "\(Self.root)/\($0.name)" }
        for file in files { server.set("\(Self.root)/\(file.name)", file.data) }
        let byName = Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0.data) })
        let publicKey = try publicKeyFile(key, in: directory)
        let mirrorDirectory = directory.path("mirror")
        let folder = "\(mirrorDirectory)/\(Self.root)"
        try await server.withRunning { url in
            var random = SeededRandomNumberGenerator(seed: 38)
            var interrupted = 0
            let arguments = [
                "mirror", "--source", url.absoluteString, "--source-root", Self.root, "--export-dir", mirrorDirectory,
                "--public-key", publicKey,
            ]
            for round in 0..<12 {
                // The source moves: a window of its files, as new files come and retention drops old ones.
                let window = Array(all[(round / 3)..<min(all.count, 3 + round / 2)])
                server.set("\(Self.root)/index.txt", Data(window.joined(separator: "\n").utf8))
                let child = try ChildProcess(try #require(ExternalTool.enserver.path), arguments)
                try await Task.sleep(for: .milliseconds(Int.random(in: 0..<300, using: &random)))
                child.send(SIGKILL)
                _ = await child.waitForExit()
                // Whatever the moment: every file there is whole, and index.txt lists only files there.
                let served = try servedFiles(folder)
                for (name, data) in served where name != "index.txt" {
                    #expect(byName[name] == data, "round \(round): \(name) is not the source's file")
                }
                if let index = served["index.txt"] {
                    for line in String(decoding: index, as: UTF8.self).split(separator: "\n") {
                        let name = String(line.dropFirst(Self.root.count + 1))
                        #expect(served[name] != nil, "round \(round): index.txt lists \(name), which is not there")
                    }
                }
                var expected: [String: Data] = ["index.txt": Data(window.joined(separator: "\n").utf8)]
                for line in window {
                    let name = String(line.dropFirst(Self.root.count + 1))
                    expected[name] = byName[name]
                }
                if served != expected { interrupted += 1 }
                // A run to its end converges on the source.
                let outcome = try await ChildProcess.runAsync(
                    try #require(ExternalTool.enserver.path), arguments, timeout: .seconds(300))
                #expect(
                    outcome.termination.exitStatus == 0, "\(String(decoding: outcome.standardError, as: UTF8.self))")
                #expect(try servedFiles(folder) == expected, "round \(round)")
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
                    $0.hasSuffix(".partial")
                }
                #expect(leftovers.isEmpty, "\(leftovers)")
            }
            // Some kills did land in the middle of a run.
            #expect(interrupted > 0)
        }
    }

    @Test("bad options exit 2 naming the option")
    func badOptions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let publicKey = try publicKeyFile(try P256SigningKey(), in: directory)
        let base = [
            "mirror", "--source", "http://127.0.0.1:9", "--export-dir", directory.path("m"), "--public-key", publicKey,
        ]
        await expectEnserverFailure(
            ["mirror", "--export-dir", directory.path("m"), "--public-key", publicKey], mentioning: "--source")
        await expectEnserverFailure(
            ["mirror", "--source", "http://127.0.0.1:9", "--export-dir", directory.path("m")],
            mentioning: "--public-key")
        await expectEnserverFailure(
            ["mirror", "--source", "ftp://x", "--export-dir", "m", "--public-key", publicKey],
            mentioning: "--source ftp://x")
        await expectEnserverFailure(base + ["--source-root", "../up"], mentioning: "--source-root ../up")
        await expectEnserverFailure(base + ["--export-root", "/abs"], mentioning: "--export-root /abs")
        await expectEnserverFailure(
            base + ["--filename-rewrite", "fixed.zip"], mentioning: "--filename-rewrite fixed.zip")
        await expectEnserverFailure(base + ["--interval", "often"], mentioning: "--interval often")
        await expectEnserverFailure(base + ["--max-file-bytes", "0"], mentioning: "--max-file-bytes 0")
        await expectEnserverFailure(
            [
                "mirror", "--source", "http://127.0.0.1:9", "--export-dir", "m", "--public-key",
                directory.path("none.pem"),
            ],
            mentioning: "--public-key \(directory.path("none.pem"))")
        try "not a key".write(toFile: directory.path("bad.pem"), atomically: true, encoding: .utf8)
        await expectEnserverFailure(
            [
                "mirror", "--source", "http://127.0.0.1:9", "--export-dir", "m", "--public-key",
                "v1=" + directory.path("bad.pem"),
            ],
            mentioning: "--public-key \(directory.path("bad.pem"))")
        #expect(!FileManager.default.fileExists(atPath: directory.path("m")))
    }
}
