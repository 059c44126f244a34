// Test support for ENKeyServerTests' crash test: exports from the key-server store at STORE-PATH into the export
// directory EXPORT-DIR in a loop, forever, until the test kills it with SIGKILL.
//
// Its clock starts at START (UTC seconds) and runs 3,600 times faster than real time. Hourly batches, cut as soon
// as they end (no minimum window age), leases of 60 clock seconds, Google's padding. Each round posts 3,000 new
// keys (key data: the round's clock time as 8 little-endian bytes, then the key's number as 8 bytes) and
// publishes, so that a kill lands anywhere: in a post, a claim, signing, recording, writing files or index.txt.
import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import Foundation

guard CommandLine.arguments.count == 4, let start = Double(CommandLine.arguments[3]) else {
    FileHandle.standardError.write(Data("usage: ENKeyServerCrashHelper STORE-PATH EXPORT-DIR START\n".utf8))
    exit(2)
}
let began = Date()
let clock: @Sendable () -> Date = {
    Date(timeIntervalSince1970: start + Date().timeIntervalSince(began) * 3_600)
}
do {
    var configuration = ENKeyServerConfiguration(
        region: "310", signers: [ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v1")])
    configuration.exportPeriod = 3_600
    configuration.minimumWindowAge = 0
    configuration.exportLeaseDuration = 60
    configuration.exportDirectory = URL(fileURLWithPath: CommandLine.arguments[2])
    let server = ENKeyServer(
        store: try ENKeyServerStore(path: CommandLine.arguments[1], clock: clock), configuration: configuration,
        clock: clock)
    while true {
        let now = clock()
        let round = UInt64(now.timeIntervalSince1970)
        let keys = (0..<3_000).map { n in
            var keyData = Data()
            withUnsafeBytes(of: round.littleEndian) { keyData.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(n).littleEndian) { keyData.append(contentsOf: $0) }
            return ENTemporaryExposureKey(
                keyData: keyData, rollingStartNumber: ENIntervalNumber(date: now).rollingStart.adding(-144),
                transmissionRiskLevel: UInt8(n % 8), diagnosisReportType: .confirmedTest)
        }
        try server.postDiagnosisKeys(keys)
        _ = try server.publish()
    }
} catch {
    FileHandle.standardError.write(Data("ENKeyServerCrashHelper: \(error)\n".utf8))
    exit(1)
}
