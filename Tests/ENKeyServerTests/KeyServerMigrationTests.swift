import ENCore
import ENKeyServer
import ENKeyServerSQLite
import ENSQLite
import ENTestSupport
import Foundation
import GRDB
import Testing

@Suite("Key-server store migration")
struct KeyServerMigrationTests {
    /// The schema with one more migration, as the next released version would add one.
    static let nextSchema = SQLiteSchema(
        kind: KeyServerSchema.schema.kind, signatureTable: KeyServerSchema.schema.signatureTable,
        migrations: KeyServerSchema.schema.migrations + [
            (
                "key-server-test-next",
                { @Sendable db in try db.execute(sql: "ALTER TABLE key_server_keys ADD COLUMN test_note TEXT") }
            )
        ])

    @Test func aNextMigrationRunsOnAVersion1FileAndKeepsItsKeysAndFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("keys.sqlite")
        let key = makeKey(1, start: today.adding(-144))
        let waiting = makeKey(2, start: today.adding(-144))
        let first = try TestServer(store: try ENKeyServerSQLiteStore(path: path, clock: { referenceDate }))
        try await first.server.postDiagnosisKeys([key])
        let published = try await first.server.publish()
        try await first.server.postDiagnosisKeys([waiting])
        try first.store.close()

        // Opened with the next schema, the file gains the new migration and keeps everything.
        let upgraded = try ENKeyServerSQLiteStore(path: path, schema: Self.nextSchema, clock: { referenceDate })
        try upgraded.checkIntegrity()
        #expect(try await upgraded.diagnosisKeysAwaitingExport() == [waiting])
        #expect(try await upgraded.exportFiles(startingAt: 0) == published)
        try upgraded.close()
        let (applied, columns) = try await DatabaseQueue(path: path).read { db in
            (
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
                try db.columns(in: "key_server_keys").map(\.name)
            )
        }
        #expect(applied == ["key-server-test-next", "key-server-v1", "key-server-v2"])
        #expect(columns.contains("test_note"))

        // This build does not know the new migration: it refuses the file and leaves it as it was.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: ENError.self) { _ = try ENKeyServerSQLiteStore(path: path) }
        #expect(error?.code == .unsupported)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    /// A file written by the first schema, before keys had origins: its keys have no regions, and still go into the
    /// files of the output region after the upgrade.
    @Test func keysStoredBeforeOriginsAreExportedForTheOutputRegion() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("keys.sqlite")
        let version1 = SQLiteSchema(
            kind: KeyServerSchema.schema.kind, signatureTable: KeyServerSchema.schema.signatureTable,
            migrations: [KeyServerSchema.schema.migrations[0]])
        try ENKeyServerSQLiteStore(path: path, schema: version1, clock: { referenceDate }).close()
        let key = makeKey(1, start: today.adding(-144))
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO key_server_keys (\(SQLiteCodec.keyColumns), received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: SQLiteCodec.keyArguments(key) + [SQLiteCodec.column(referenceDate.addingTimeInterval(-3600))]
            )
        }
        #expect(
            try await queue.read { db in try db.columns(in: "key_server_keys").map(\.name) }.contains("regions")
                == false)
        try queue.close()

        let upgraded = try TestServer(
            store: try ENKeyServerSQLiteStore(path: path, clock: { referenceDate }),
            configure: { $0.selection = ENExportSelection(excludedRegions: ["EU"]) })
        let stored = try await upgraded.store.storedKeys(withKeyData: [key.keyData])
        #expect(stored.map(\.origin) == [ENKeyServerKeyOrigin()])
        let files = try await upgraded.server.publish()
        #expect(try files.flatMap { try contents(of: $0).keys }.map(\.keyData) == [key.keyData])
    }
}
