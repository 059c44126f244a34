import ENCore
import ENSQLite
import ENStore
import ENTestSupport
import Foundation
import GRDB
import Testing

@Suite("Bad database files")
struct BadInputTests {
    func expectUntouched(
        _ path: String, code: ENError.Code,
        opening open: (String) throws(ENError) -> Void = { path throws(ENError) in _ = try ENDeviceStore(path: path) }
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
        // A read-only connection to a file in write-ahead-log mode creates an empty log when none exists (and
        // cannot remove it on closing): no content, so nothing changed.
        let walAfter = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        #expect(walAfter == walBefore || (walBefore == nil && walAfter?.isEmpty == true))
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
        let store = directory.path("store.sqlite")
        try ENDeviceStore(path: store).close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        bytes.replaceSubrange(100..<bytes.count, with: Data(repeating: 0xA5, count: bytes.count - 100))
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectUntouched(path, code: .badFormat)
    }

    @Test func aNewerSchemaIsUnsupportedAndIsNotOverwritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try makeLaterStore("store-newer.sqlite", in: directory)
        try expectUntouched(path, code: .unsupported)
    }

    @Test func anSQLiteDatabaseThatIsNotAStoreIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try makeDatabaseFile(
            "foreign.sqlite", in: directory, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        try expectUntouched(path, code: .badFormat)
    }

    @Test func aMissingDirectoryIsDataInaccessible() throws {
        expectCode(.dataInaccessible) {
            _ = try ENDeviceStore(path: "/nonexistent-\(UUID().uuidString)/store.sqlite")
        }
    }

    /// Makes a store file, then changes it with `alter` behind the store's back, in `journalMode`.
    func alteredStore(
        in directory: TemporaryDirectory, journalMode: String, _ alter: (Database) throws -> Void
    ) throws -> String {
        let path = directory.path("altered-\(journalMode).sqlite")
        try ENDeviceStore(path: path, configuration: TestClock(referenceDate).configuration()).close()
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = \(journalMode)")
            try alter(db)
        }
        try queue.close()
        return path
    }

    /// A file whose migration records promise columns it does not have (what the store fuzz target found: the
    /// retention run on open failed on the missing column after the file had been changed) is refused before
    /// anything is written, in either journal mode.
    @Test(arguments: ["DELETE", "WAL"])
    func aStoreMissingAColumnItsSchemaRecordsIsABadFormat(journalMode: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try alteredStore(in: directory, journalMode: journalMode) { db in
            try db.execute(sql: "ALTER TABLE processed_key_files DROP COLUMN processed_at")
        }
        try expectUntouched(path, code: .badFormat)
        do throws(ENError) {
            _ = try ENDeviceStore(path: path)
        } catch {
            #expect(error.reason.contains("processed_key_files lacks column processed_at"), "\(error)")
        }
    }

    @Test func aStoreMissingATableItsSchemaRecordsIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try alteredStore(in: directory, journalMode: "DELETE") { db in
            try db.execute(sql: "DROP TABLE detection_ledger")
        }
        try expectUntouched(path, code: .badFormat)
    }

    /// A trigger of the file's own would run on the store's writes: refused.
    @Test func aStoreWithATriggerOfItsOwnIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try alteredStore(in: directory, journalMode: "WAL") { db in
            try db.execute(
                sql: "CREATE TRIGGER keep_sightings BEFORE DELETE ON sightings BEGIN SELECT RAISE(ABORT, 'no'); END")
        }
        try expectUntouched(path, code: .badFormat)
    }

    /// Migration records with a gap (a later schema without an earlier one) are refused.
    @Test func aStoreRecordingALaterSchemaWithoutAnEarlierOneIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try makeLaterStore("later.sqlite", in: directory)
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v1'")
        }
        try queue.close()
        try expectUntouched(path, code: .badFormat) { path throws(ENError) in
            _ = try ENDeviceStore(path: path, migrations: laterMigrations)
        }
    }

    /// A file not yet in write-ahead-log mode is upgraded as a copy: when a step after the migrations fails, the
    /// file is exactly as it was and no copy is left behind; when every step succeeds, the file is the upgraded
    /// store, in write-ahead-log mode.
    @Test func aRollbackJournalFileIsUpgradedThroughACopy() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("legacy.sqlite")
        let first: SQLiteSchema.Migration = (
            "t-v1", { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        )
        let second: SQLiteSchema.Migration = (
            "t-v2", { db in try db.execute(sql: "ALTER TABLE t ADD COLUMN name TEXT") }
        )
        let new = SQLiteSchema(kind: "TestStore", signatureTable: "t", migrations: [first, second])
        let queue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration(first.identifier, migrate: first.migrate)
        try migrator.migrate(queue)
        try queue.write { db in try db.execute(sql: "INSERT INTO t (id) VALUES (7)") }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(before[18] == 1 && before[19] == 1)  // rollback-journal mode

        struct PrepareFailed: Error {}
        #expect(throws: ENError.self) {
            _ = try ENSQLiteDatabase(path: path, schema: new, prepare: { _ in throw PrepareFailed() })
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { $0.contains("upgrading") }
        #expect(leftovers.isEmpty, "\(leftovers)")

        let database = try ENSQLiteDatabase(path: path, schema: new)
        try database.close()
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(after[18] == 2 && after[19] == 2)  // write-ahead-log mode
        let reopened = try DatabaseQueue(path: path)
        defer { try? reopened.close() }
        let rows = try reopened.read { db in try Row.fetchAll(db, sql: "SELECT id, name FROM t") }
        #expect(rows.count == 1 && rows[0]["id"] == 7)
    }

    /// A process killed in a transaction on a file not yet in write-ahead-log mode (a store's first open) leaves a
    /// hot rollback journal, which a read-only connection cannot roll back: the file still opens, as it was before
    /// that transaction. The crash is the file and its journal copied while the transaction is open.
    @Test func aHotRollbackJournalLeftByACrashIsRolledBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (path, crashed) = (directory.path("live.sqlite"), directory.path("crashed.sqlite"))
        let migration: SQLiteSchema.Migration = (
            "t-v1", { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB)") }
        )
        let schema = SQLiteSchema(kind: "TestStore", signatureTable: "t", migrations: [migration])
        let queue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration(migration.identifier, migrate: migration.migrate)
        try migrator.migrate(queue)
        try queue.write { db in try db.execute(sql: "INSERT INTO t (id) VALUES (7)") }
        try queue.inDatabase { db in
            // A tiny page cache: the transaction's pages spill into the file, their old contents into the journal.
            try db.execute(sql: "PRAGMA cache_size = 1")
            try db.inTransaction {
                for id in 100..<2_100 {
                    try db.execute(sql: "INSERT INTO t (id, data) VALUES (?, randomblob(1000))", arguments: [id])
                }
                for suffix in ["", "-journal"] {
                    try FileManager.default.copyItem(atPath: path + suffix, toPath: crashed + suffix)
                }
                return .rollback
            }
        }
        try queue.close()
        let journal = try Data(contentsOf: URL(fileURLWithPath: crashed + "-journal"))
        #expect(!journal.isEmpty, "the crash left a journal")

        let database = try ENSQLiteDatabase(path: crashed, schema: schema)
        try database.close()
        let reopened = try DatabaseQueue(path: crashed)
        defer { try? reopened.close() }
        #expect(try reopened.read { db in try Int.fetchAll(db, sql: "SELECT id FROM t") } == [7])
        let integrity = try reopened.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
    }
}
