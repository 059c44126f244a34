import ENFuzzTargets
import ENStore
import ENTestSupport
import Foundation
import Testing

/// Every input a fuzz target ever broke a rule on (kept under `Fixtures/fuzz/TARGET/`), and every seed the fuzz
/// script starts from, still passes through its target with every rule kept.
@Suite("Fuzz regressions and seeds")
struct FuzzRegressionTests {
    /// The regular files below a fixtures directory, recursively, or none when it does not exist.
    static func files(below path: String, where accept: (URL) -> Bool = { _ in true }) -> [URL] {
        guard let root = try? Fixtures.url(path),
            let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        return walk.compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true && accept($0) }
            .sorted { $0.path < $1.path }
    }

    static func run(_ target: FuzzTarget, _ files: [URL]) throws {
        for file in files {
            let data = try Data(contentsOf: file)
            do {
                try target.run(data)
            } catch {
                Issue.record("\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test("kept crashers", arguments: FuzzTarget.allCases)
    func crashers(target: FuzzTarget) throws {
        try Self.run(target, Self.files(below: "fuzz/\(target.rawValue)"))
    }

    @Test("export files: the archive, the bare export.bin, the scanner and the signature rules hold on every fixture")
    func exportSeeds() throws {
        let exports = Self.files(below: "export") { ["zip", "bin"].contains($0.pathExtension) }
        #expect(exports.count >= 10)
        try Self.run(.exportArchive, exports)
        let binaries = Self.files(below: "export") { $0.pathExtension == "bin" }
        try Self.run(.exportBinary, binaries)
        try Self.run(.keyScanner, binaries)
    }

    @Test("exposure configurations, score inputs and stores: the seeds keep every rule")
    func otherSeeds() throws {
        let configurations = Self.files(below: "risk") { $0.pathExtension == "json" }
        #expect(configurations.count >= 2)
        try Self.run(.exposureConfiguration, configurations)
        try Self.run(.scoreInput, Self.files(below: "risk") { $0.lastPathComponent.hasPrefix("score-v") })
        // A store this build writes (the schema has no older version to seed from).
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try ENDeviceStore(path: directory.path("store.sqlite"))
        try store.write(.setExposureNotificationEnabled(true))
        try store.close()
        try Self.run(.store, [directory.url.appendingPathComponent("store.sqlite")])
        // Inputs no seed covers: nothing at all, and bytes of every kind.
        for target in FuzzTarget.allCases {
            try target.run(Data())
            try target.run(Data(0...255))
        }
    }
}
