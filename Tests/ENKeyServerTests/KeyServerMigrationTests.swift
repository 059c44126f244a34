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
                "key-server-test-v2",
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
        #expect(applied == ["key-server-test-v2", "key-server-v1"])
        #expect(columns.contains("test_note"))

        // This build does not know the new migration: it refuses the file and leaves it as it was.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: ENError.self) { _ = try ENKeyServerSQLiteStore(path: path) }
        #expect(error?.code == .unsupported)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }
}
