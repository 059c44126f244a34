import ENCore
import ENExportFormat
import ENKeyServer
import ENStore
import ENTestSupport
import Foundation
import Testing

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
    @Test func killingAnExporterAtRandomNeverListsAHalfWrittenFileNorExportsAKeyTwice() throws {
        let helper = try Self.helperURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("keys.sqlite")
        let exports = directory.url.appendingPathComponent("exports")
        var generator = SeededRandomNumberGenerator.forTest()
        var start = Double(dayStart)
        var kills = 0
        for _ in 0..<10 {
            let process = Process()
            process.executableURL = helper
            process.arguments = [path, exports.path, String(Int(start))]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 300_000...1_500_000, using: &generator))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "the helper exited: \(process.terminationStatus)")
            try Self.checkConsistency(storePath: path, exports: exports)
            start += 200 * 3_600
        }
        #expect(kills == 10)

        let clock = TestClock(Date(timeIntervalSince1970: start + 10 * 3_600))
        let store = try ENKeyServerStore(path: path, clock: { clock.now })
        let test = try TestServer(clock: clock, store: store) {
            $0.exportPeriod = 3_600
            $0.minimumWindowAge = 0
            $0.padding = .googleServer
            $0.exportDirectory = exports
        }
        _ = try test.server.publish()
        #expect(try store.read(.diagnosisKeysAwaitingExport).isEmpty)
        // How much the helper did before each kill depends on the machine's speed (a sanitizer build does far
        // less): the checks below hold whatever it did, as long as it did something.
        let posted = try store.read(.exportBatches()).flatMap(\.keys)
        #expect(!posted.isEmpty)
        let files = try store.read(.exportFiles(startingAt: 0))
        #expect(!files.isEmpty)
        let written = try files.flatMap { try contents(of: $0).keys }
        #expect(Set(written.map(\.keyData)).count == written.count)
        #expect(Set(posted).isSubset(of: Set(written)))
        try store.close()
        try Self.checkConsistency(storePath: path, exports: exports)
    }

    static func checkConsistency(storePath: String, exports: URL) throws {
        let store = try ENKeyServerStore(path: storePath)
        defer { try? store.close() }
        try store.checkIntegrity()
        let files = try store.read(.exportFiles(startingAt: 0))
        if let index = try? String(contentsOf: exports.appendingPathComponent("index.txt"), encoding: .utf8),
            !index.isEmpty
        {
            for name in index.split(separator: "\n").map(String.init) {
                let onDisk = try Data(contentsOf: exports.appendingPathComponent(name))
                let stored = try #require(try store.read(.exportFile(named: name)))
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
