import ENCore
import ENStore
import ENTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The helper's detection result (see `Sources/ENStoreCrashHelper/main.swift`).
struct CrashDetectionResult: Codable, Sendable {
    var sequence: Int
    var padding: [Int]
}

@Suite("Crash safety")
struct CrashSafetyTests {
    static let keyFilesPerDetection = 2

    /// The helper records detections in a loop; it is killed with SIGKILL at a random moment 20 times, and
    /// after each kill the store must pass `PRAGMA integrity_check` and hold whole detections only: for n
    /// detections, results 1...n, key files 1...n processed (n+1 not), the 2 n cached key files of detections
    /// 1...n in order (the newest with its whole contents), n ledger entries, and the newest ledger entry dated
    /// as detection n.
    @Test func killingAWriterAtRandomNeverCorruptsOrHalfWrites() throws {
        let helper = try Self.helperURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("crash.sqlite")
        var generator = SeededRandomNumberGenerator.forTest()
        var previous = 0
        var counts: [Int] = []
        var kills = 0
        for _ in 0..<20 {
            let process = try ChildProcess(helper.path, [path], standardError: .file(directory.path("helper.err")))
            usleep(UInt32.random(in: 20_000...600_000, using: &generator))
            if process.isRunning {
                process.send(SIGKILL)
                kills += 1
            }
            let termination = process.waitForExit()
            #expect(
                termination.signal == SIGKILL,
                "the helper ended by itself (\(termination)): \((try? String(contentsOfFile: directory.path("helper.err"), encoding: .utf8)) ?? "")"
            )

            let store = try ENDeviceStore(
                path: path, configuration: ENStoreConfiguration(deletesExpiredRecordsOnOpen: false))
            try store.checkIntegrity()
            let detections = try store.read(.detections(as: CrashDetectionResult.self, kind: "crash"))
            let n = detections.count
            #expect(n >= previous)
            #expect(detections.map(\.result.sequence) == Array(stride(from: 1, through: n, by: 1)))
            #expect(detections.allSatisfy { $0.result.padding.count == 100 })
            let hashes = (1...(n + 1)).map(Self.keyFileHash)
            #expect(try store.read(.unprocessedKeyFileHashes(hashes)) == [Self.keyFileHash(n + 1)])
            let cachedHashes = (0..<n * Self.keyFilesPerDetection).map { i in
                Self.cachedKeyFileHash(i / Self.keyFilesPerDetection + 1, i % Self.keyFilesPerDetection)
            }
            #expect(try store.read(.cachedKeyFileHashes) == cachedHashes)
            if n > 0 {
                let newest = try store.read(.cachedKeyFile(Self.cachedKeyFileHash(n, 1)))
                #expect(newest == Data(repeating: UInt8(truncatingIfNeeded: n + 1), count: 65_536))
            }
            #expect(try store.read(.cachedKeyFile(Self.cachedKeyFileHash(n + 1, 0))) == nil)
            let ledger = try store.read(.rateLimitLedger(since: .distantPast))
            #expect(ledger.count == n)
            #expect(ledger.last == detections.last?.date)
            try store.close()
            previous = n
            counts.append(n)
        }
        #expect(kills > 0)
        #expect(previous > 0, "the helper never completed a detection")
        print("crash safety: detections after each kill: \(counts)")
    }

    static func keyFileHash(_ sequence: Int) -> Data {
        var data = Data(count: 32)
        withUnsafeBytes(of: UInt64(sequence).littleEndian) { data.replaceSubrange(0..<8, with: $0) }
        return data
    }

    static func cachedKeyFileHash(_ sequence: Int, _ index: Int) -> Data {
        var data = Data(repeating: 0xCF, count: 32)
        withUnsafeBytes(of: UInt64(sequence).littleEndian) { data.replaceSubrange(0..<8, with: $0) }
        data[8] = UInt8(index)
        return data
    }

    /// The helper binary, built beside the test bundle.
    static func helperURL() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("ENStoreCrashHelper")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw ENError(.internal, "ENStoreCrashHelper not found near \(CommandLine.arguments[0])")
    }
}
