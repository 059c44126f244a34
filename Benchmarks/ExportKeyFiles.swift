import ENCore
import ENCrypto
import ENExportFormat
import Foundation

/// Keys written as signed export files in a temporary directory, and read back the way a detection reads a
/// download: one file at a time, unzipped, its signature verified, its keys scanned in chunks. Only one
/// file's bytes and one chunk of keys exist at a time, so memory does not grow with the number of files.
final class ExportKeyFiles {
    let directory: URL
    let files: [URL]
    let keyCount: Int
    let verifier: ENExportVerifier
    /// The first error met while reading; reading stops there (a `Sequence` cannot throw).
    private(set) var failure: (any Error)?

    /// Writes one signed file per chunk of `chunks`.
    init(chunks: some Sequence<[ENTemporaryExposureKey]>) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("enbench-files-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let signingKey = try P256SigningKey()
        let writer = ENExportWriter(
            region: "US", startTimestamp: 1_700_000_000, endTimestamp: 1_700_086_400,
            signers: [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")])
        verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey)
        ])
        var generator = SplitMix64(seed: 0xF11E)
        var files: [URL] = []
        var count = 0
        for chunk in chunks {
            for archive in try writer.archives(keys: chunk, using: &generator) {
                let url = directory.appendingPathComponent("export-\(files.count).zip")
                try archive.write(to: url)
                files.append(url)
            }
            count += chunk.count
        }
        self.files = files
        keyCount = count
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The total size of the files on disk.
    var byteCount: Int {
        files.reduce(0) { total, url in
            total + ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)
        }
    }

    /// The keys of every file, in chunks of at most `chunkSize`, read lazily file by file.
    func keyChunks(chunkSize: Int = 65_536) -> some Sequence<[ENTemporaryExposureKey]> {
        failure = nil
        var fileIndex = 0
        var current: ENExportKeyScanner.ChunkIterator?
        return AnyIterator { [self] () -> [ENTemporaryExposureKey]? in
            do {
                while failure == nil {
                    if let chunk = try current?.next() { return chunk }
                    guard fileIndex < files.count else { return nil }
                    let archive = try ENExportArchive(contentsOf: files[fileIndex])
                    fileIndex += 1
                    guard try verifier.verify(archive).isVerified else {
                        throw ENError(.badFormat, "\(files[fileIndex - 1].lastPathComponent) does not verify")
                    }
                    current = try archive.keyScanner().chunks(ofSize: chunkSize)
                }
            } catch {
                failure = error
            }
            return nil
        }
    }

    /// The keys of every file left encoded, in chunks of at most `chunkSize`, read lazily file by file: what a
    /// detection hands the matcher (its threads decode the keys).
    func encodedChunks(chunkSize: Int = 65_536) -> some Sequence<any ENEncodedKeyChunk> {
        failure = nil
        var fileIndex = 0
        var chunks: [ENEncodedExportKeys] = []
        var next = 0
        return AnyIterator { [self] () -> (any ENEncodedKeyChunk)? in
            do {
                while failure == nil {
                    if next < chunks.count {
                        next += 1
                        return chunks[next - 1]
                    }
                    guard fileIndex < files.count else { return nil }
                    let archive = try ENExportArchive(contentsOf: files[fileIndex])
                    fileIndex += 1
                    guard try verifier.verify(archive).isVerified else {
                        throw ENError(.badFormat, "\(files[fileIndex - 1].lastPathComponent) does not verify")
                    }
                    chunks = try ENExportKeyScanner.encodedChunks(of: archive.exportBinary, ofSize: chunkSize)
                    next = 0
                }
            } catch {
                failure = error
            }
            return nil
        }
    }

    /// Throws the error that ended the last read early, if any.
    func checkRead() throws {
        if let failure { throw failure }
    }
}
