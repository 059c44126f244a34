import ENCore
import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The folder an exporter publishes to, laid out as Google's server lays out its bucket: `ROOT/NAME` for each
/// file and `ROOT/index.txt`. Every file is written whole or not at all, and on disk before the write returns
/// (`DurableFile`: a temporary name, flushed, renamed over the final name, the folder flushed).
struct ExportDirectory {
    /// `exportDirectory/exportRoot`.
    let folder: URL
    /// The prefix of the names in `index.txt`.
    let root: String

    /// The folder `folder`, its files listed in `index.txt` as `root/NAME`.
    init(folder: URL, root: String) {
        self.folder = folder
        self.root = root
    }

    init?(_ configuration: ENKeyServerConfiguration) {
        guard let directory = configuration.exportDirectory else { return nil }
        folder =
            configuration.exportRoot.isEmpty ? directory : directory.appendingPathComponent(configuration.exportRoot)
        root = configuration.exportRoot
    }

    /// The name `index.txt` lists for the file `name`: `ROOT/NAME`, or `NAME` without a root.
    func indexName(_ name: String) -> String { root.isEmpty ? name : "\(root)/\(name)" }

    /// Whether the file `name` is there.
    func contains(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path)
    }

    /// Writes `index.txt`: the files' index names joined with `"\n"`, no trailing newline.
    func writeIndex(_ names: [String]) throws(ENError) {
        try save(Data(names.map(indexName).joined(separator: "\n").utf8), as: "index.txt")
    }

    /// Removes the temporary files of writes that died (a crashed exporter's) last modified more than `age`
    /// seconds ago; younger ones may belong to a live exporter.
    func removeAbandonedTemporaryFiles(olderThan age: TimeInterval) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(".") && name.hasSuffix(".partial") {
            let path = folder.appendingPathComponent(name).path
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                Date().timeIntervalSince(modified) > age
            else { continue }
            unlink(path)
        }
    }

    /// Removes the file `name`, if it is there.
    func remove(_ name: String) throws(ENError) {
        let path = folder.appendingPathComponent(name).path
        guard unlink(path) == 0 || errno == ENOENT else {
            throw ENError(.dataInaccessible, "cannot remove the file (errno \(errno))", context: .init(file: path))
        }
    }

    /// Writes `data` as the file `name` atomically and durably: a temporary file in the same folder, flushed,
    /// renamed over `name`, then the folder flushed.
    func save(_ data: Data, as name: String) throws(ENError) {
        let path = folder.appendingPathComponent(name).path
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ENError(
                .dataInaccessible, "cannot create the export folder: \(error)", context: .init(file: folder.path))
        }
        let temporary = folder.appendingPathComponent(".\(name).\(UUID().uuidString).partial").path
        try DurableFile.write(data, to: path, through: temporary, mode: 0o644, exclusive: true)
        try DurableFile.syncDirectory(folder.path)
    }
}
