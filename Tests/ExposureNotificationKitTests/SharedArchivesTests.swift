import ENCore
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

@testable import ExposureNotificationKit

/// Managers that share `ENSharedArchives` read each downloaded zip once: the archive is the one each would read,
/// refused zips are refused alike and never kept.
@Suite("ENSharedArchives: a key file unzipped once for many phones")
struct SharedArchivesTests {
    private static let zip = "export/en-android/sample_diagnosis_key_file_174cf0d.zip"

    @Test func theArchiveIsTheOneEachWouldRead() throws {
        let data = try Fixtures.data(Self.zip)
        let shared = ENSharedArchives()
        let expected = try ENExportArchive(data: data)
        #expect(try shared.archive(of: data, limits: .default) == expected)
        #expect(try shared.archive(of: data, limits: .default) == expected)
        #expect(shared.count == 1)
        // Other limits: read as asked, not kept.
        var limits = ENExportLimits.default
        limits.maximumExportBinarySize = expected.exportBinary.count - 1
        #expect(throws: ENError.self) { try shared.archive(of: data, limits: limits) }
        #expect(shared.count == 1)
    }

    @Test func aRefusedZipIsRefusedAlikeAndNotKept() throws {
        var damaged = try Fixtures.data(Self.zip)
        damaged[damaged.count / 2] ^= 0xFF
        let expected = #expect(throws: ENError.self) { try ENExportArchive(data: damaged) }
        let shared = ENSharedArchives()
        for _ in 0..<2 {
            let error = #expect(throws: ENError.self) { try shared.archive(of: damaged, limits: .default) }
            #expect(error?.code == expected?.code)
            #expect(error?.reason == expected?.reason)
        }
        #expect(shared.count == 0)
    }

    /// At most `capacity` are kept.
    @Test func theKeptArchivesAreBounded() throws {
        let base = try ENExportArchive(data: try Fixtures.data(Self.zip))
        let shared = ENSharedArchives()
        // Distinct zips: the same export.bin beside a different export.sig each.
        var zips: [Data] = []
        for index in 0...ENSharedArchives.capacity {
            zips.append(
                try ENExportArchive(exportBinary: base.exportBinary, signatureFile: Data([UInt8(index)])).zipData())
        }
        for zip in zips { _ = try shared.archive(of: zip, limits: .default) }
        #expect(shared.count == ENSharedArchives.capacity)
        #expect(try shared.archive(of: zips[0], limits: .default).signatureFile == Data([0]))
        #expect(shared.count == ENSharedArchives.capacity)
    }

    /// A detection through a manager whose environment shares archives finds what one without finds.
    @Test func detectionIsTheSameWithSharedArchives() async throws {
        var results: [[ENExposureWindow]] = []
        for sharing in [false, true] {
            let scenario = try await DetectionScenario()
            defer { scenario.directory.cleanUp() }
            try scenario.encounter(minutes: 8)
            let file = try scenario.writeZip(try await scenario.releasedKeys(), name: "shared.zip")
            scenario.detectAt()
            var environment = scenario.environment
            if sharing { environment.sharedArchives = ENSharedArchives() }
            let manager = ENManager(environment: environment)
            manager.dispatchQueue = DispatchQueue(label: "SharedArchivesTests")
            try await manager.activate()
            defer { manager.invalidate() }
            let summary = try await manager.detectExposures(
                configuration: DetectionScenario.configuration, diagnosisKeyURLs: [file])
            results.append(try await manager.getExposureWindows(summary: summary))
        }
        #expect(results[0].count == 1)
        #expect(results[0] == results[1])
    }
}
