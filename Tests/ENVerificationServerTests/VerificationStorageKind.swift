import ENCore
import ENTestSupport
import ENVerificationServer
import Foundation
import Testing

#if PostgreSQL
    import ENVerificationServerPostgres
    import Logging
    import PostgresNIO
#endif

/// The storages the verification server runs on; the storage contract's cases run on every one.
enum VerificationStorageKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The kinds this build and machine run: PostgreSQL with the PostgreSQL trait, unless
    /// `ENKEYSERVER_TEST_POSTGRES=skip` (the key server's tests' switch and server, `PostgresTestDatabase`).
    static var available: [VerificationStorageKind] {
        #if PostgreSQL
            PostgresTestDatabase.isEnabled ? [.sqlite, .postgres] : [.sqlite]
        #else
            [.sqlite]
        #endif
    }

    /// Runs `body` with `count` storages on one new, empty database of this kind (several instances of one
    /// verification server): SQLite stores on one file, or PostgreSQL stores with a connection pool each on a schema
    /// of their own, dropped afterwards.
    func with<T: Sendable>(
        count: Int = 1, _ body: ([any ENVerificationStorage]) async throws -> T
    ) async throws -> T {
        switch self {
        case .sqlite:
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let stores = try (0..<count).map { _ in
                try ENVerificationSQLiteStore(path: directory.path("verification.sqlite"))
            }
            defer { for store in stores { try? store.close() } }
            return try await body(stores)
        case .postgres:
            #if PostgreSQL
                return try await PostgresTestDatabase.withSchema { url in
                    let configuration = try ENVerificationPostgresStore.clientConfiguration(url: url)
                    let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
                    let clients = (0..<count).map { _ in
                        PostgresClient(configuration: configuration, backgroundLogger: quiet)
                    }
                    return try await withThrowingTaskGroup(of: Void.self) { group in
                        for client in clients { group.addTask { await client.run() } }
                        defer { group.cancelAll() }
                        let stores = clients.map { ENVerificationPostgresStore(client: $0, logger: quiet) }
                        try await stores[0].migrate()
                        return try await body(stores)
                    }
                }
            #else
                Issue.record("this build has no PostgreSQL storage")
                throw CancellationError()
            #endif
        }
    }
}
