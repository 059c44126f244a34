import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Synchronization
import Testing

@testable import ExposureNotificationKit

@Suite("VerificationRun: verification held to the memory budget while matching reads")
struct VerificationRunTests {
    /// A real zip, verified (by hash) as it is now.
    func verifiedZip(in directory: TemporaryDirectory, storage: VerifiedFile.Storage? = nil) throws -> VerifiedFile {
        let url = directory.url.appendingPathComponent("export-1.zip")
        try Fixtures.data("export/en-android/sample_diagnosis_key_file_174cf0d.zip").write(to: url)
        let file = DiagnosisKeyFile(layout: .zip(url))
        let exportBinary = try file.archive(limits: .default).exportBinary
        return VerifiedFile(
            file: file, index: 0, hash: SHA256.hash(exportBinary), storage: storage ?? .memory(exportBinary))
    }

    /// 0 while a reservation waits, then 1 (granted) or 2 (refused).
    final class Outcome: Sendable {
        let value = Atomic(0)
        var current: Int { value.load(ordering: .sequentiallyConsistent) }
    }

    @Test("a file beyond the budget waits until matching hands memory back; the file read next never waits")
    func reservationsWaitForReleases() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let verified = try verifiedZip(in: directory)
        let size = try #require(
            { if case .memory(let bytes) = verified.storage { bytes.count } else { nil } }())
        // Three files (indexes 2, 1, 0 in matching's order: positions 0, 1, 2), room for one.
        let run = VerificationRun(fileCount: 3, budget: size)
        #expect(run.reserve(size, at: 2))
        run.record(
            .success(VerifiedFile(file: verified.file, index: 2, hash: verified.hash, storage: verified.storage)), at: 2
        )

        // Position 1 does not fit and is not next: it waits.
        let granted = Outcome()
        let thread = Thread {
            granted.value.store(run.reserve(size, at: 1) ? 1 : 2, ordering: .sequentiallyConsistent)
        }
        thread.start()
        try await Task.sleep(for: .milliseconds(200))
        #expect(granted.current == 0)

        // The file matching reads next never waits, even beyond the budget.
        run.take(upTo: 1)
        try await waitUntil { granted.current == 1 }

        // A release hands the bytes back: the file is then read again from its original when needed.
        run.release(at: 2)
        for index in [1, 0] {
            let other = Data(repeating: UInt8(index), count: 32)
            run.record(
                .success(VerifiedFile(file: verified.file, index: index, hash: other, storage: .original)), at: index)
        }
        run.finish()
        let files = try run.verifiedFiles()
        #expect(files.map(\.index) == [0, 1, 2])
        if case .memory = files[2].storage { Issue.record("the released file kept its bytes") }
        #expect(SHA256.hash(try files[2].exportBinary()) == verified.hash)

        // Once matching has ended, nothing waits and nothing is kept.
        let ended = VerificationRun(fileCount: 3, budget: 0)
        ended.endMatching()
        #expect(!ended.reserve(size, at: 0))
    }

    @Test("a file read again must hash as it did when it verified")
    func aFileChangedAfterVerificationIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let verified = try verifiedZip(in: directory, storage: .original)
        #expect(SHA256.hash(try verified.exportBinary()) == verified.hash)
        try Fixtures.data("export/en-internals/sample_diagnosis_key_file.zip").write(to: verified.file.url)
        do {
            _ = try verified.exportBinary()
            Issue.record("a changed file was read as verified")
        } catch {
            #expect(error.code == .badFormat)
            #expect(error.reason.contains("changed after it was verified"))
        }
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}

extension DiagnosisKeyFile {
    /// The zip's URL, for tests.
    var url: URL {
        switch layout {
        case .zip(let url): url
        case .pair(let binary, _): binary
        }
    }
}
