import ENCore
import ENCrypto
import ENExportFormat
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
        #expect(applied == ["key-server-test-next", "key-server-v1", "key-server-v2", "key-server-v3"])
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

    /// A file of schema version 2, with one configuration marking keys through `key_server_keys.batch_index`: after
    /// the upgrade its batches, files and marks are the default configuration's, which exports what it would have
    /// exported before (the waiting key alone), while a new configuration on the same file exports every key once.
    @Test func aVersion2FilesMarksBecomeTheDefaultConfigurations() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("keys.sqlite")
        let version2 = SQLiteSchema(
            kind: KeyServerSchema.schema.kind, signatureTable: KeyServerSchema.schema.signatureTable,
            migrations: Array(KeyServerSchema.schema.migrations.prefix(2)))
        try ENKeyServerSQLiteStore(path: path, schema: version2, clock: { referenceDate }).close()
        let exported = makeKey(1, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
        let revised = makeKey(2, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
        let waiting = makeKey(3, start: today.adding(-144))
        let padding = makeKey(4, start: today.adding(-144))
        let arrival = SQLiteCodec.column(referenceDate.addingTimeInterval(-7200))
        let batchEnd = Int64(referenceDate.timeIntervalSince1970) - 3600
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO key_server_batches (batch_index, created_at, start_timestamp, end_timestamp,
                        first_file_index, file_count, status, keys_until)
                    VALUES (0, ?, ?, ?, 0, 1, 'complete', ?)
                    """, arguments: [arrival, batchEnd - 3600, batchEnd, arrival])
            try db.execute(
                sql: """
                    INSERT INTO key_server_files (file_index, name, batch_index, start_timestamp, end_timestamp,
                        created_at, data)
                    VALUES (0, ?, 0, ?, ?, ?, ?)
                    """,
                arguments: [
                    ENKeyServerFile.name(start: UInt64(batchEnd - 3600), end: UInt64(batchEnd), number: 1),
                    batchEnd - 3600, batchEnd, arrival, Data([1, 2, 3]),
                ])
            for (key, batch, padding) in [(exported, 0, 0), (revised, 0, 0), (waiting, nil, 0), (padding, 0, 1)]
                as [(ENTemporaryExposureKey, Int?, Int)]
            {
                try db.execute(
                    sql: """
                        INSERT INTO key_server_keys (\(SQLiteCodec.keyColumns), received_at, batch_index, is_padding,
                            regions)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'US')
                        """, arguments: SQLiteCodec.keyArguments(key) + [arrival, batch, padding])
            }
            // The revision was exported by batch 0 too.
            try db.execute(
                sql: """
                    UPDATE key_server_keys SET revised_report_type = ?, revised_at = ?, revised_batch_index = 0
                    WHERE key_data = ?
                    """,
                arguments: [Int64(ENDiagnosisReportType.confirmedTest.rawValue), arrival, revised.keyData])
        }
        try queue.close()

        let store = try ENKeyServerSQLiteStore(path: path, clock: { referenceDate })
        try store.checkIntegrity()
        #expect(try await store.diagnosisKeysAwaitingExport() == [waiting])
        #expect(try await store.revisedKeysAwaitingExport().isEmpty)
        let batches = try await store.exportBatches()
        #expect(batches.map(\.index) == [0])
        #expect(batches.first.map { sorted($0.keys) } == sorted([exported, revised]))
        #expect(batches.first?.revisedKeys.map(\.keyData) == [revised.keyData])
        let old = try await store.exportFiles(startingAt: 0)
        #expect(old.map(\.data) == [Data([1, 2, 3])])

        let signer = ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v1")
        let group = try ENKeyServerExportGroup(
            storage: store,
            configurations: [
                ENKeyServerConfiguration(region: "US", signers: [signer], padding: nil),
                ENKeyServerConfiguration(
                    region: "US", signers: [signer], padding: nil, exportRoot: "new", exportName: "new"),
            ],
            clock: { referenceDate })
        let published = try await group.publish()
        // The upgraded default configuration exports the waiting key alone, after its old file.
        let defaults = try #require(published[""])
        #expect(try defaults.flatMap { try contents(of: $0).keys } == [waiting])
        #expect(defaults.map(\.index) == [1])
        // The new configuration exports every key (not the padding) and the revision, once.
        let new = try #require(published["new"]).map { try contents(of: $0) }
        #expect(sorted(new.flatMap(\.keys)) == sorted([exported, revised, waiting]))
        #expect(new.flatMap(\.revised).map(\.keyData) == [revised.keyData])
        #expect(try await store.exportFiles(of: "new", startingAt: 0).map(\.index) == [0])
        try store.close()
    }
}
