import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import Foundation
import Testing

#if PostgreSQL
    import ENKeyServerPostgres
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Key server: crash safety")
struct KeyServerCrashTests {
    /// The helper (`Sources/ENKeyServerCrashHelper/main.swift`) posts keys and exports hourly batches into a
    /// directory in a loop; it is killed with SIGKILL at a random moment 10 times. After each kill: the store
    /// passes `PRAGMA integrity_check`; `index.txt` lists only files that are on disk whole, the same bytes as
    /// the store's, readable; each batch's files are numbered 1...n; no key is in two files. At the end a server
    /// on the same store redoes what the killed exporters held (their leases expired) and every posted key is in
    /// exactly one file.
    @Test func killingAnExporterAtRandomNeverListsAHalfWrittenFileNorExportsAKeyTwice() async throws {
        let helper = try Self.helperURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("keys.sqlite")
        let exports = directory.url.appendingPathComponent("exports")
        var generator = SeededRandomNumberGenerator.forTest()
        var start = Double(dayStart)
        var kills = 0
        for _ in 0..<10 {
            let process = try ChildProcess(
                helper.path, [path, exports.path, String(Int(start))],
                standardError: .file(directory.path("helper.err")))
            usleep(UInt32.random(in: 300_000...1_500_000, using: &generator))
            if process.isRunning {
                process.send(SIGKILL)
                kills += 1
            }
            let termination = await process.waitForExit()
            #expect(termination.signal == SIGKILL, "the helper ended: \(termination)")
            try await Self.checkConsistency(storePath: path, exports: exports)
            start += 200 * 3_600
        }
        #expect(kills == 10)

        let clock = TestClock(Date(timeIntervalSince1970: start + 10 * 3_600))
        let store = try ENKeyServerSQLiteStore(path: path, clock: { clock.now })
        let test = try TestServer(clock: clock, store: store) {
            $0.exportPeriod = 3_600
            $0.minimumWindowAge = 0
            $0.padding = .googleServer
            $0.exportDirectory = exports
        }
        _ = try await test.server.publish()
        #expect(try await store.diagnosisKeysAwaitingExport().isEmpty)
        // How much the helper did before each kill depends on the machine's speed (a sanitizer build does far
        // less): the checks below hold whatever it did, as long as it did something.
        let posted = try await store.exportBatches().flatMap(\.keys)
        #expect(!posted.isEmpty)
        let files = try await store.exportFiles(startingAt: 0)
        #expect(!files.isEmpty)
        let written = try files.flatMap { try contents(of: $0).keys }
        #expect(Set(written.map(\.keyData)).count == written.count)
        #expect(Set(posted).isSubset(of: Set(written)))
        try store.close()
        try await Self.checkConsistency(storePath: path, exports: exports)
    }

    static func checkConsistency(storePath: String, exports: URL) async throws {
        let store = try ENKeyServerSQLiteStore(path: storePath)
        defer { try? store.close() }
        try store.checkIntegrity()
        let files = try await store.exportFiles(startingAt: 0)
        if let index = try? String(contentsOf: exports.appendingPathComponent("index.txt"), encoding: .utf8),
            !index.isEmpty
        {
            for name in index.split(separator: "\n").map(String.init) {
                let onDisk = try Data(contentsOf: exports.appendingPathComponent(name))
                let stored = try #require(try await store.exportFile(named: name))
                #expect(onDisk == stored.data, "\(name)")
                _ = try ENExportArchive(data: onDisk).keyExport()
            }
        }
        for batch in Set(files.map(\.batchIndex)) {
            let names = files.filter { $0.batchIndex == batch }.map(\.name)
            #expect(
                names.map { String($0.suffix(9).prefix(5)) } == (1...names.count).map { String(format: "%05d", $0) })
        }
        let keys = try files.flatMap { try contents(of: $0).keys }
        #expect(Set(keys.map(\.keyData)).count == keys.count)
    }

    #if PostgreSQL
        /// The same on PostgreSQL, where the helper also says which rounds of keys it stored (committed, as a
        /// publish answered 200): it is killed with SIGKILL at a random moment 10 times; after each kill `index.txt`
        /// lists only whole files with the database's bytes and no key is in two files; at the end an exporter on the
        /// same database redoes what the killed ones held, and every acknowledged key is in exactly one file.
        @Test(.enabled(if: PostgresTestDatabase.isEnabled))
        func killingAnInstanceOnPostgreSQLLosesNoAcknowledgedKeyNorExportsAKeyTwice() async throws {
            let helper = try Self.helperURL()
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let exports = directory.url.appendingPathComponent("exports")
            try await PostgresTestDatabase.withSchema { url in
                var generator = SeededRandomNumberGenerator.forTest()
                var start = Double(dayStart)
                var acknowledged = Set<UInt64>()
                for _ in 0..<10 {
                    let output = directory.path("helper.out")
                    let process = try ChildProcess(
                        helper.path, ["--postgres", url, exports.path, String(Int(start))],
                        standardOutput: .file(output), standardError: .file(directory.path("helper.err")))
                    try await Task.sleep(for: .milliseconds(Int.random(in: 1_500...4_000, using: &generator)))
                    #expect(process.isRunning, "the helper exited")
                    process.send(SIGKILL)
                    await process.waitForExit()
                    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                    for line in text.split(separator: "\n") where line.hasPrefix("stored ") {
                        if let round = UInt64(line.dropFirst(7)) { acknowledged.insert(round) }
                    }
                    try await Self.checkConsistency(url: url, exports: exports)
                    start += 200 * 3_600
                }
                #expect(!acknowledged.isEmpty)

                try await Self.exportEverythingAndCheck(
                    url: url, exports: exports, acknowledged: acknowledged, at: start + 10 * 3_600)
                try await Self.checkConsistency(url: url, exports: exports)
            }
        }

        /// PostgreSQL itself stopped the hard way (`pg_ctl stop -m immediate`: no checkpoint, as a crash) three times
        /// while an instance publishes and exports: after each restart (crash recovery) `index.txt` lists only whole
        /// files, no key is in two files, and at the end every key the instance had acknowledged is exported once.
        @Test(.enabled(if: PrivatePostgres.isAvailable))
        func stoppingPostgreSQLHardLosesNoAcknowledgedKeyNorExportsAKeyTwice() async throws {
            let helper = try Self.helperURL()
            let server = try PrivatePostgres()
            defer { server.destroy() }
            try await server.start()
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let exports = directory.url.appendingPathComponent("exports")
            var generator = SeededRandomNumberGenerator.forTest()
            var start = Double(dayStart)
            var acknowledged = Set<UInt64>()
            for _ in 0..<3 {
                let output = directory.path("helper.out")
                let process = try ChildProcess(
                    helper.path, ["--postgres", server.url, exports.path, String(Int(start))],
                    standardOutput: .file(output))
                try await Task.sleep(for: .milliseconds(Int.random(in: 2_000...4_000, using: &generator)))
                await server.stop(immediately: true)
                try await Task.sleep(for: .milliseconds(500))
                process.send(SIGKILL)
                await process.waitForExit()
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                for line in text.split(separator: "\n") where line.hasPrefix("stored ") {
                    if let round = UInt64(line.dropFirst(7)) { acknowledged.insert(round) }
                }
                try await server.start()
                try await Self.checkConsistency(url: server.url, exports: exports)
                start += 200 * 3_600
            }
            #expect(!acknowledged.isEmpty)
            try await Self.exportEverythingAndCheck(
                url: server.url, exports: exports, acknowledged: acknowledged, at: start + 10 * 3_600)
            try await Self.checkConsistency(url: server.url, exports: exports)
        }

        /// Runs an exporter at `time` (UTC seconds), which redoes the batches killed exporters held, then checks that
        /// no key is in two files and every key of the `acknowledged` rounds is in one.
        static func exportEverythingAndCheck(
            url: String, exports: URL, acknowledged: Set<UInt64>, at time: TimeInterval
        ) async throws {
            let clock = TestClock(Date(timeIntervalSince1970: time))
            try await KeyServerPostgresTests.withStore(url) { store in
                var configuration = ENKeyServerConfiguration(
                    region: "310",
                    signers: [ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v1")])
                configuration.exportPeriod = 3_600
                configuration.minimumWindowAge = 0
                configuration.exportDirectory = exports
                _ = try await ENKeyServerExporter(
                    storage: store, configuration: configuration, clock: { clock.now }
                )
                .publish()
                let keys = try await Self.exportedKeys(store)
                #expect(Set(keys.map(\.keyData)).count == keys.count)
                let exported = Set(keys.map(\.keyData))
                for round in acknowledged {
                    for n in [UInt64(0), 149, 299] {
                        var keyData = Data()
                        withUnsafeBytes(of: round.littleEndian) { keyData.append(contentsOf: $0) }
                        withUnsafeBytes(of: n.littleEndian) { keyData.append(contentsOf: $0) }
                        #expect(
                            exported.contains(keyData), "round \(round) key \(n) was acknowledged, not exported")
                    }
                }
                let rounds = Set(keys.map { $0.keyData.prefix(8) })
                #expect(keys.count >= acknowledged.count * 300)
                #expect(rounds.count >= acknowledged.count)
            }
        }

        /// Every key of every published file, in file order.
        static func exportedKeys(_ store: ENKeyServerPostgresStore) async throws -> [ENTemporaryExposureKey] {
            var keys: [ENTemporaryExposureKey] = []
            for name in try await store.exportFileNames(startingAfter: .distantPast) {
                let file = try #require(try await store.exportFile(named: name))
                keys += try contents(of: file).keys
            }
            return keys
        }

        static func checkConsistency(url: String, exports: URL) async throws {
            try await KeyServerPostgresTests.withStore(url) { store in
                if let index = try? String(contentsOf: exports.appendingPathComponent("index.txt"), encoding: .utf8),
                    !index.isEmpty
                {
                    for name in index.split(separator: "\n").map(String.init) {
                        let onDisk = try Data(contentsOf: exports.appendingPathComponent(name))
                        let stored = try #require(try await store.exportFile(named: name))
                        #expect(onDisk == stored.data, "\(name)")
                        _ = try ENExportArchive(data: onDisk).keyExport()
                    }
                }
                var files: [ENKeyServerFile] = []
                for name in try await store.exportFileNames(startingAfter: .distantPast) {
                    files.append(try #require(try await store.exportFile(named: name)))
                }
                for batch in Set(files.map(\.batchIndex)) {
                    let names = files.filter { $0.batchIndex == batch }.map(\.name).sorted()
                    #expect(
                        names.map { String($0.suffix(9).prefix(5)) }
                            == (1...names.count).map { String(format: "%05d", $0) })
                }
                let keys = try files.flatMap { try contents(of: $0).keys }
                #expect(Set(keys.map(\.keyData)).count == keys.count)
            }
        }
    #endif

    /// The helper binary, built beside the test bundle.
    static func helperURL() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("ENKeyServerCrashHelper")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw ENError(.internal, "ENKeyServerCrashHelper not found near \(CommandLine.arguments[0])")
    }
}
