import ENCrypto
import ENTestSupport
import Foundation
import Testing

@testable import ExposureNotificationKit

@Suite("ExportBinarySpill: the temporary directory of a detection")
struct ExportBinarySpillTests {
    @Test("a new spill removes the directories of processes that ended, and only those")
    func removesAbandonedDirectories() throws {
        let parent = try TemporaryDirectory()
        defer { parent.cleanUp() }
        let manager = FileManager.default
        func make(_ name: String) throws -> URL {
            let url = parent.url.appendingPathComponent(name, isDirectory: true)
            try manager.createDirectory(at: url, withIntermediateDirectories: true)
            try Data([1, 2, 3]).write(to: url.appendingPathComponent("0.bin"))
            return url
        }
        // A process ID no system hands out: that process has ended.
        let abandoned = try make("ExposureDetection-99999999-\(UUID().uuidString)")
        let live = try make("ExposureDetection-\(getpid())-\(UUID().uuidString)")
        let withoutProcess = try make("ExposureDetection-\(UUID().uuidString)")
        let other = try make("ExposureDetection-99999999-notes")
        let bytes = Data("export.bin".utf8)

        let spill = ExportBinarySpill(in: parent.url)
        // Nothing happens before the first file is kept aside.
        #expect(manager.fileExists(atPath: abandoned.path))
        let url = try spill.write(bytes, index: 0)
        #expect(!manager.fileExists(atPath: abandoned.path))
        for kept in [live, withoutProcess, other] { #expect(manager.fileExists(atPath: kept.path)) }
        #expect(try spill.read(url, hash: SHA256.hash(bytes), file: "export-1.zip") == bytes)
        #expect(url.deletingLastPathComponent().lastPathComponent.hasPrefix("ExposureDetection-\(getpid())-"))

        spill.remove()
        #expect(!manager.fileExists(atPath: url.deletingLastPathComponent().path))
        for kept in [live, withoutProcess, other] { #expect(manager.fileExists(atPath: kept.path)) }
    }
}
