import ENCore
import ENStore
import ENTestSupport
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
        var generator = SeededRandomNumberGenerator.forTest(defaultSeed: 42)
        let garbage = Data((0..<20_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        try garbage.write(to: URL(fileURLWithPath: path))
        try expectUntouched(path, code: .badFormat, mentioning: "garbage.sqlite")
    }

    @Test func aFileWithAnSQLiteHeaderButGarbageAfterIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("truncated.sqlite")
        var bytes = try Data(contentsOf: try Fixtures.url("store/store-v1.sqlite"))
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
