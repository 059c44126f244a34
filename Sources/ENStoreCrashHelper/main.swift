// Test support for ENStoreTests' crash-safety test: opens the store at the path given as the first argument
// and records detections in a loop, forever, until the test kills it with SIGKILL.
//
// Detection n (1, 2, 3...) writes, in one transaction: a result {"sequence": n, "padding": [...]}, the
// processed key-file hash (n as 8 little-endian bytes, then 24 zeros), 20 cached keys and a ledger entry. The
// test checks after each kill that these agree: all of a detection or none of it.
import ENCore
import ENStore
import Foundation

struct CrashDetectionResult: Codable, Sendable {
    var sequence: Int
    var padding: [Int]
}

/// The key-file hash the helper records for detection `sequence` (the test computes the same).
func keyFileHash(_ sequence: Int) -> Data {
    var data = Data(count: 32)
    withUnsafeBytes(of: UInt64(sequence).littleEndian) { data.replaceSubrange(0..<8, with: $0) }
    return data
}

let keysPerDetection = 20
guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: ENStoreCrashHelper STORE-PATH\n".utf8))
    exit(2)
}
do {
    let store = try ENStore(
        path: CommandLine.arguments[1], configuration: ENStoreConfiguration(deletesExpiredRecordsOnOpen: false))
    var sequence = try store.read(.latestDetection(as: CrashDetectionResult.self, kind: "crash"))?.result.sequence ?? 0
    let today = ENIntervalNumber(date: Date()).rollingStart
    while true {
        sequence += 1
        let keys = (0..<keysPerDetection).map { k in
            var keyData = Data(count: 16)
            withUnsafeBytes(of: UInt64(sequence).littleEndian) { keyData.replaceSubrange(0..<8, with: $0) }
            withUnsafeBytes(of: UInt64(k).littleEndian) { keyData.replaceSubrange(8..<16, with: $0) }
            return ENTemporaryExposureKey(
                keyData: keyData, rollingStartNumber: today.adding(-144 * (k % 10)), transmissionRiskLevel: 4,
                diagnosisReportType: .confirmedTest)
        }
        let record = ENDetectionRecord(
            date: Date(), kind: "crash",
            result: CrashDetectionResult(sequence: sequence, padding: Array(0..<100)),
            processedKeyFileHashes: [keyFileHash(sequence)], cachedKeys: keys)
        try store.write(.recordDetection(record))
    }
} catch {
    FileHandle.standardError.write(Data("ENStoreCrashHelper: \(error)\n".utf8))
    exit(1)
}
