import Foundation
import Testing

@testable import ENCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `DurableFile`: whole files or none, the temporary name never left behind, errors that say what happened.
@Suite("DurableFile: files written whole and flushed")
struct DurableFileTests {
    /// A fresh folder under the temporary directory.
    func makeFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("DurableFile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func writesAndReplacesWholeFilesWithTheirPermissions() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("file").path
        try DurableFile.write(Data("first".utf8), to: path, through: path + ".tmp", mode: 0o600)
        try DurableFile.write(Data(repeating: 7, count: 300_000), to: path, through: path + ".tmp", mode: 0o600)
        try DurableFile.syncDirectory(folder.path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 7, count: 300_000))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["file"])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func anExclusiveWriteRefusesATemporaryNameInUseAndChangesNothing() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("index.txt").path
        let temporary = folder.appendingPathComponent(".index.txt.partial").path
        try DurableFile.write(Data("old".utf8), to: path, through: temporary, mode: 0o644, exclusive: true)
        // Another writer's temporary file: an exclusive write does not touch it.
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: temporary))
        let error = #expect(throws: ENError.self) {
            try DurableFile.write(Data("new".utf8), to: path, through: temporary, mode: 0o644, exclusive: true)
        }
        #expect(error?.code == .dataInaccessible)
        #expect(error?.context.file == temporary)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try String(contentsOfFile: temporary, encoding: .utf8) == "theirs", "not its file to remove")
        // A write that is not exclusive takes the name over.
        try DurableFile.write(Data("new".utf8), to: path, through: temporary, mode: 0o644)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }

    @Test func aFailedRenameLeavesNoTemporaryFile() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let temporary = folder.appendingPathComponent("file.tmp").path
        // The final name is in a folder that does not exist: the rename fails.
        let path = folder.appendingPathComponent("missing/file").path
        let error = #expect(throws: ENError.self) {
            try DurableFile.write(Data("x".utf8), to: path, through: temporary, mode: 0o600)
        }
        #expect(error?.code == .dataInaccessible)
        #expect(error?.context.file == path)
        #expect(error?.reason.contains("No such file") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(throws: ENError(.dataInaccessible)) { try DurableFile.syncDirectory(folder.path + "/missing") }
    }

    @Test func aFullDiskOrQuotaIsInsufficientStorage() {
        for (code, expected) in [
            (ENOSPC, ENError.Code.insufficientStorage), (EDQUOT, .insufficientStorage), (EIO, .dataInaccessible),
        ] {
            errno = code
            let error = DurableFile.error("cannot write the file", path: "/x")
            #expect(error.code == expected)
            #expect(error.reason.hasPrefix("cannot write the file: "))
        }
    }
}
