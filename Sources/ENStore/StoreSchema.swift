internal import ENCore
package import GRDB

/// What one kind of store's database file looks like: the table that identifies it and its migrations.
///
/// ``ENStoreDatabase`` opens any kind of store with it: an existing file is checked read-only against the
/// signature table and the migration identifiers before anything is written, then migrated.
package struct StoreSchema: Sendable {
    /// One migration: an identifier recorded in `grdb_migrations` and the SQL it runs.
    package typealias Migration = (identifier: String, migrate: @Sendable (Database) throws -> Void)

    /// The store's type name, for error messages ("not an ENStore").
    package var kind: String
    /// A table every file of this kind has from its first migration on, and no other kind of store has.
    package var signatureTable: String
    /// The migrations, oldest first. Never edit a shipped one; add a new one.
    package var migrations: [Migration]

    package init(kind: String, signatureTable: String, migrations: [Migration]) {
        self.kind = kind
        self.signatureTable = signatureTable
        self.migrations = migrations
    }

    /// The migration identifiers this build knows, oldest first.
    package var versions: [String] { migrations.map(\.identifier) }

    var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.identifier, migrate: migration.migrate)
        }
        return migrator
    }

    /// Throws `unsupported` when `db` records a migration this build does not know (a newer version wrote it).
    func checkNotSuperseded(_ db: Database, path: String) throws {
        let unknown = try migrator.appliedIdentifiers(db).subtracting(versions)
        guard unknown.isEmpty else {
            throw ENError(
                .unsupported,
                "this \(kind) was written by a newer version of this package (schema "
                    + "\(unknown.sorted().joined(separator: ", "))); this build knows schema "
                    + "\(versions.joined(separator: ", "))", context: ENError.Context(file: path))
        }
    }
}
