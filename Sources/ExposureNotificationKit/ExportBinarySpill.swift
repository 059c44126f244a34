internal import ENCore
internal import ENCrypto
internal import Foundation

/// Where a detection keeps the verified `export.bin` of the files beyond its memory budget
/// (``ENLimits/detectionMemoryBudget``): a private temporary directory, created on the first file and removed
/// with everything in it when the detection ends. Matching and caching read the bytes back from here instead of
/// unzipping the file again; what is read back must hash as it did when it was verified.
final class ExportBinarySpill: Sendable {
    private let directory: URL
    private let created = Locked(false)

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ExposureDetection-\(UUID().uuidString)", isDirectory: true)
    }

    deinit { remove() }

    /// Writes the `export.bin` of the `index`th file and returns where it is.
    func write(_ exportBinary: Data, index: Int) throws(ENError) -> URL {
        let url = directory.appendingPathComponent("\(index).bin")
        do {
            try created.withLock { created in
                if created { return }
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                created = true
            }
            try exportBinary.write(to: url)
        } catch {
            throw ENError(
                .dataInaccessible, "cannot keep a verified export.bin aside: \(error.localizedDescription)",
                context: ENError.Context(file: url.path))
        }
        return url
    }

    /// Reads back the `export.bin` written at `url`, which must hash to `hash`; errors name `file`.
    func read(_ url: URL, hash: Data, file: String) throws(ENError) -> Data {
        let exportBinary: Data
        do {
            exportBinary = try Data(contentsOf: url)
        } catch {
            throw ENError(
                .dataInaccessible, "a verified export.bin kept aside is gone: \(error.localizedDescription)",
                context: ENError.Context(file: file))
        }
        guard SHA256.hash(exportBinary) == hash else {
            throw ENError(.badFormat, "the file changed after it was verified", context: ENError.Context(file: file))
        }
        return exportBinary
    }

    /// Removes the directory and everything in it.
    func remove() {
        created.withLock { created in
            if created { try? FileManager.default.removeItem(at: directory) }
            created = false
        }
    }
}
