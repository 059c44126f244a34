// Test support for ENKeyServerTests' crash tests: exports from a key server's storage into the export directory
// EXPORT-DIR in a loop, forever, until the test kills it with SIGKILL.
//
//   ENKeyServerCrashHelper STORE-PATH EXPORT-DIR START              the SQLite store at STORE-PATH
//   ENKeyServerCrashHelper --postgres URL EXPORT-DIR START          PostgreSQL (the PostgreSQL trait)
//
// Its clock starts at START (UTC seconds) and runs 3,600 times faster than real time. Hourly batches, cut as soon
// as they end (no minimum window age), leases of 60 clock seconds, Google's padding. Each round stores 3,000 new
// keys (300 on PostgreSQL; key data: the round's clock time as 8 little-endian bytes, then the key's number as 8 bytes) and
// publishes, so that a kill lands anywhere: in a post, a claim, signing, recording, writing files or index.txt.
// On PostgreSQL, once a round's keys are committed it prints `stored ROUND` on standard output (flushed): those keys
// are acknowledged, as a publish answered 200 would be.
import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import Foundation

#if PostgreSQL
    import ENKeyServerPostgres
    import Logging
    import PostgresNIO
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
let postgresURL: String? = arguments.first == "--postgres" && arguments.count == 4 ? arguments[1] : nil
let rest = postgresURL == nil ? arguments : Array(arguments.dropFirst())  // [STORE-PATH or URL, EXPORT-DIR, START]
guard rest.count == 3, let start = Double(rest[2]) else {
    FileHandle.standardError.write(
        Data("usage: ENKeyServerCrashHelper (STORE-PATH | --postgres URL) EXPORT-DIR START\n".utf8))
    exit(2)
}
let began = Date()
let clock: @Sendable () -> Date = {
    Date(timeIntervalSince1970: start + Date().timeIntervalSince(began) * 3_600)
}

/// Round `round`'s keys: 3,000 (300 on PostgreSQL, where each is its own insert statement).
func keys(round: UInt64, at now: Date, count: Int = 3_000) -> [ENTemporaryExposureKey] {
    (0..<count).map { n in
        var keyData = Data()
        withUnsafeBytes(of: round.littleEndian) { keyData.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(n).littleEndian) { keyData.append(contentsOf: $0) }
        return ENTemporaryExposureKey(
            keyData: keyData, rollingStartNumber: ENIntervalNumber(date: now).rollingStart.adding(-144),
            transmissionRiskLevel: UInt8(n % 8), diagnosisReportType: .confirmedTest)
    }
}

do {
    var configuration = ENKeyServerConfiguration(
        region: "310", signers: [ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v1")])
    configuration.exportPeriod = 3_600
    configuration.minimumWindowAge = 0
    configuration.exportLeaseDuration = 60
    configuration.exportDirectory = URL(fileURLWithPath: rest[1])
    if let postgresURL {
        #if PostgreSQL
            let quiet = Logger(label: "helper", factory: { _ in SwiftLogNoOpLogHandler() })
            let client = PostgresClient(
                configuration: try ENKeyServerPostgresStore.clientConfiguration(url: postgresURL),
                backgroundLogger: quiet)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                let store = ENKeyServerPostgresStore(client: client, logger: quiet)
                try await store.migrate()
                let exporter = ENKeyServerExporter(storage: store, configuration: configuration, clock: clock)
                while true {
                    let now = clock()
                    let round = UInt64(now.timeIntervalSince1970)
                    let hour = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3_600).rounded(.down) * 3_600)
                    _ = try await store.insertAndRevise(
                        inserting: keys(round: round, at: now, count: 300).map {
                            ENKeyServerInsertion(key: $0, exportableAt: hour)
                        },
                        revising: [])
                    FileHandle.standardOutput.write(Data("stored \(round)\n".utf8))
                    _ = try await exporter.publish()
                }
            }
        #else
            FileHandle.standardError.write(Data("ENKeyServerCrashHelper: built without the PostgreSQL trait\n".utf8))
            exit(2)
        #endif
    } else {
        let store = try ENKeyServerSQLiteStore(path: rest[0], clock: clock)
        let exporter = ENKeyServerExporter(storage: store, configuration: configuration, clock: clock)
        while true {
            let now = clock()
            _ = try await store.insertAndRevise(
                inserting: keys(round: UInt64(now.timeIntervalSince1970), at: now).map {
                    ENKeyServerInsertion(key: $0, exportableAt: now)
                },
                revising: [])
            _ = try await exporter.publish()
        }
    }
} catch {
    FileHandle.standardError.write(Data("ENKeyServerCrashHelper: \(error)\n".utf8))
    exit(1)
}
