// Test support for ENStoreTests' crash-safety test: opens the store at the path given as the first argument
// and records detections in a loop, forever, until the test kills it with SIGKILL.
//
// Detection n (1, 2, 3...) writes, in one transaction: a result {"sequence": n, "padding": [...]}, the
// processed key-file hash (n as 8 little-endian bytes, then 24 zeros), 2 cached key files of 64 KiB (hash: n as
// 8 little-endian bytes, the file's index k, then 23 bytes 0xCF; contents: 64 KiB of the byte n mod 256 + k)
// and a ledger entry. The test checks after each kill that these agree: all of a detection or none of it.
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

/// The hash of cached key file `index` of detection `sequence` (the test computes the same).
func cachedKeyFileHash(_ sequence: Int, _ index: Int) -> Data {
    var data = Data(repeating: 0xCF, count: 32)
    withUnsafeBytes(of: UInt64(sequence).littleEndian) { data.replaceSubrange(0..<8, with: $0) }
    data[8] = UInt8(index)
    return data
}

let keyFilesPerDetection = 2
guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: ENStoreCrashHelper STORE-PATH\n".utf8))
    exit(2)
}
do {
    let store = try ENDeviceStore(
        path: CommandLine.arguments[1], configuration: ENStoreConfiguration(deletesExpiredRecordsOnOpen: false))
    var sequence = try store.read(.latestDetection(as: CrashDetectionResult.self, kind: "crash"))?.result.sequence ?? 0
    while true {
        sequence += 1
        let files = (0..<keyFilesPerDetection).map { k in
            let byte = UInt8(truncatingIfNeeded: sequence + k)
            return ENCachedKeyFile(
                hash: cachedKeyFileHash(sequence, k), exportBinary: { Data(repeating: byte, count: 65_536) })
        }
        let record = ENDetectionRecord(
            date: Date(), kind: "crash",
            result: CrashDetectionResult(sequence: sequence, padding: Array(0..<100)),
            processedKeyFileHashes: [keyFileHash(sequence)], cachedKeyFiles: files)
        try store.write(.recordDetection(record))
    }
} catch {
    FileHandle.standardError.write(Data("ENStoreCrashHelper: \(error)\n".utf8))
    exit(1)
}
