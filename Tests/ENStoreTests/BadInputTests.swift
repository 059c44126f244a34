import ENCore
import ENStore
import ENTestSupport
import Foundation
import Testing

@Suite("Bad database files")
struct BadInputTests {
    func expectUntouched(
        _ path: String, code: ENError.Code,
        opening open: (String) throws(ENError) -> Void = { path throws(ENError) in _ = try ENStore(path: path) }
    ) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let walBefore = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        do throws(ENError) {
            try open(path)
            Issue.record("opening \(path) should fail")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.context.file == path, "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) == walBefore)
    }

    @Test func aGarbageFileIsABadFormatAndIsNotOverwritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("garbage.sqlite")
        var generator = SeededRandomNumberGenerator.forTest(defaultSeed: 42)
        let garbage = Data((0..<20_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        try garbage.write(to: URL(fileURLWithPath: path))
        try expectUntouched(path, code: .badFormat)
    }

    @Test func aFileWithAnSQLiteHeaderButGarbageAfterIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("truncated.sqlite")
        var bytes = try Data(contentsOf: try Fixtures.url("store/store-v1.sqlite"))
        bytes.replaceSubrange(100..<bytes.count, with: Data(repeating: 0xA5, count: bytes.count - 100))
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectUntouched(path, code: .badFormat)
    }

    @Test func aNewerSchemaIsUnsupportedAndIsNotOverwritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("store-newer.sqlite", to: directory)
        try expectUntouched(path, code: .unsupported)
    }

    @Test func anSQLiteDatabaseThatIsNotAStoreIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("foreign.sqlite", to: directory)
        try expectUntouched(path, code: .badFormat)
    }

    @Test func aMissingDirectoryIsDataInaccessible() throws {
        expectCode(.dataInaccessible) {
            _ = try ENStore(path: "/nonexistent-\(UUID().uuidString)/store.sqlite")
        }
        expectCode(.dataInaccessible) {
            _ = try ENAppStore(path: "/nonexistent-\(UUID().uuidString)/app.sqlite")
        }
    }

    /// The framework's and the app's stores are different files: neither opens the other's, nor changes it.
    @Test func aStoreOfAnotherKindIsABadFormatAndIsNotOverwritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storePath = directory.path("store.sqlite")
        let appPath = directory.path("app.sqlite")
        try ENStore(path: storePath).close()
        try ENAppStore(path: appPath).close()
        try expectUntouched(storePath, code: .badFormat) { path throws(ENError) in
            _ = try ENAppStore(path: path)
        }
        try expectUntouched(appPath, code: .badFormat)
        // A framework file of an older schema holds app tables, but is no app store either.
        let old = try copyFixture("store-v1.sqlite", to: directory)
        try expectUntouched(old, code: .badFormat) { path throws(ENError) in
            _ = try ENAppStore(path: path)
        }
    }

    @Test func aGarbageFileIsNoAppStoreEither() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("garbage.sqlite")
        var generator = SeededRandomNumberGenerator(seed: 7)
        try Data((0..<20_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }).write(
            to: URL(fileURLWithPath: path))
        try expectUntouched(path, code: .badFormat) { path throws(ENError) in
            _ = try ENAppStore(path: path)
        }
    }
}
