import ENCore
import ENStore
import Foundation
import Testing

@Suite("Bad database files")
struct BadInputTests {
    func expectUntouched(
        _ path: String, code: ENError.Code, mentioning text: String,
        configuration: ENStoreConfiguration = ENStoreConfiguration()
    ) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            _ = try ENStore(path: path, configuration: configuration)
            Issue.record("opening \(path) should fail")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.reason.contains(text), "\(error.reason)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aGarbageFileIsABadFormatAndIsNotOverwritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("garbage.sqlite")
        var generator = SplitMix(seed: 42)
        let garbage = Data((0..<20_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        try garbage.write(to: URL(fileURLWithPath: path))
        try expectUntouched(path, code: .badFormat, mentioning: "garbage.sqlite")
    }

    @Test func aFileWithAnSQLiteHeaderButGarbageAfterIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("truncated.sqlite")
        var bytes = try Data(contentsOf: try fixtureURL("store-v1.sqlite"))
        bytes.replaceSubrange(100..<bytes.count, with: Data(repeating: 0xA5, count: bytes.count - 100))
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectUntouched(path, code: .badFormat, mentioning: "truncated.sqlite")
    }

    @Test func aNewerSchemaIsUnsupportedAndIsNotOverwritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("store-newer.sqlite", to: directory)
        try expectUntouched(path, code: .unsupported, mentioning: "v3-from-the-future")
    }

    @Test func anSQLiteDatabaseThatIsNotAStoreIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("foreign.sqlite", to: directory)
        try expectUntouched(path, code: .badFormat, mentioning: "not an ENStore")
    }

    @Test func aMissingDirectoryIsDataInaccessible() throws {
        expectCode(.dataInaccessible) {
            _ = try ENStore(path: "/nonexistent-\(UUID().uuidString)/store.sqlite")
        }
    }
}

/// A small deterministic generator for test data.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
