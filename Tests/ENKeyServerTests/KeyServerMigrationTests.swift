import ENCore
import ENKeyServer
import ENStore
import ENTestSupport
import Foundation
import Testing

@Suite("Key-server store migration")
struct KeyServerMigrationTests {
    /// A key-server-v1 file, written by the sqlite3 CLI from schema v1's SQL (KeyServerSchema.migrateV1, copied
    /// verbatim): one key published in v1 batch 0 (no file), one waiting.
    static let v1SQL = """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('key-server-v1');
        CREATE TABLE key_server_batches (
            batch_index INTEGER PRIMARY KEY,
            created_at REAL NOT NULL
        );
        CREATE TABLE key_server_keys (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            key_data BLOB NOT NULL,
            rolling_start INTEGER NOT NULL,
            rolling_period INTEGER NOT NULL,
            transmission_risk_level INTEGER NOT NULL,
            report_type INTEGER NOT NULL,
            days_since_onset INTEGER,
            variant INTEGER NOT NULL,
            received_at REAL NOT NULL,
            batch_index INTEGER REFERENCES key_server_batches(batch_index),
            UNIQUE (key_data, rolling_start)
        );
        CREATE INDEX key_server_keys_by_batch ON key_server_keys(batch_index, id);
        INSERT INTO key_server_batches VALUES (0, 799999000.0);
        INSERT INTO key_server_keys VALUES
            (1, x'01010101010101010101010101010101', 2963808, 144, 5, 1, NULL, 0, 799998000.0, 0),
            (2, x'02020202020202020202020202020202', 2963808, 144, 3, 2, -2, 0, 799999500.0, NULL);
        """

    @Test(
        "a key-server-v1 file migrates: its keys and batch stay, publishing continues after them",
        .enabled(if: ExternalTool("sqlite3").isAvailable))
    func aV1FileMigrates() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("keys-v1.sqlite")
        let run = try ExternalTool("sqlite3").run([path], stdin: Data(Self.v1SQL.utf8))
        try #require(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")

        let store = try ENKeyServerStore(path: path)
        try store.checkIntegrity()
        let published = ENTemporaryExposureKey(
            keyData: Data(repeating: 1, count: 16), rollingStartNumber: 2_963_808, transmissionRiskLevel: 5,
            diagnosisReportType: .confirmedTest)
        let waiting = ENTemporaryExposureKey(
            keyData: Data(repeating: 2, count: 16), rollingStartNumber: 2_963_808, transmissionRiskLevel: 3,
            diagnosisReportType: .confirmedClinicalDiagnosis, daysSinceOnsetOfSymptoms: -2)
        #expect(
            try await store.read(.exportBatches())
                == [
                    ENKeyServerBatch(
                        index: 0, createdAt: Date(timeIntervalSinceReferenceDate: 799_999_000), keys: [published])
                ])
        #expect(try await store.read(.diagnosisKeysAwaitingExport) == [waiting])

        // A revision of the key published in v1 and the waiting key go into batch 1, file 0; the batch starts at
        // the earliest waiting arrival, since the v1 batch has no window.
        let test = try TestServer(store: store)
        var revision = published
        revision.diagnosisReportType = .revoked
        #expect(
            try await test.server.postDiagnosisKeys([revision, waiting])
                == ENKeyServerPostResult(duplicates: 1, revised: 1))
        let files = try await test.server.publish()
        #expect(files.map(\.index) == [0])
        #expect(files.map(\.batchIndex) == [1])
        #expect(
            files.first?.startTimestamp
                == UInt64(Date(timeIntervalSinceReferenceDate: 799_999_500).timeIntervalSince1970))
        let (keys, revised) = try contents(of: try #require(files.first))
        #expect(keys == [waiting])
        #expect(revised == [revision])
        try store.close()
    }
}
