internal import ENCore
package import GRDB

/// What one kind of store's database file looks like: the table that identifies it and its migrations.
///
/// ``ENSQLiteDatabase`` opens any kind of store with it: an existing file is checked read-only against the
/// signature table and the migration identifiers before anything is written, then migrated.
package struct SQLiteSchema: Sendable {
    /// One migration: an identifier recorded in `grdb_migrations` and the SQL it runs.
    package typealias Migration = (identifier: String, migrate: @Sendable (Database) throws -> Void)

    /// The store's type name, for error messages ("not an ENDeviceStore").
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

    package var migrator: DatabaseMigrator {
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

    /// Throws `badFormat` unless `db` has what the migrations it records made: they are the first ones this
    /// build knows, in order, every table they create exists with at least their columns, and there is no trigger
    /// or view they did not create (a foreign trigger would run on the store's own writes).
    ///
    /// Checked read-only, before anything is written: a file whose migration records disagree with its tables is
    /// refused instead of failing half-way through a later step.
    func checkShape(_ db: Database, path: String) throws {
        let applied = try migrator.appliedIdentifiers(db)
        guard !applied.isEmpty else { return }
        let recorded = versions.prefix(applied.count)
        guard Set(recorded) == applied else {
            throw ENError(
                .badFormat,
                "not a valid \(kind): it records schema \(versions.filter(applied.contains).joined(separator: ", ")) "
                    + "but not all of the versions before them", context: ENError.Context(file: path))
        }
        let expected = try DatabaseQueue()
        try migrator.migrate(expected, upTo: recorded.last!)
        let (columns, others) = try expected.read { db in try (Self.tableColumns(db), Self.triggersAndViews(db)) }
        for (table, names) in columns.sorted(by: { $0.key < $1.key }) {
            guard try db.tableExists(table) else {
                throw ENError(
                    .badFormat, "not a valid \(kind): it has no table \(table)",
                    context: ENError.Context(file: path))
            }
            let missing = names.subtracting(try db.columns(in: table).map(\.name))
            guard missing.isEmpty else {
                throw ENError(
                    .badFormat,
                    "not a valid \(kind): table \(table) lacks column \(missing.sorted().joined(separator: ", "))",
                    context: ENError.Context(file: path))
            }
        }
        let foreign = try Self.triggersAndViews(db).subtracting(others)
        guard foreign.isEmpty else {
            throw ENError(
                .badFormat,
                "not a valid \(kind): it has a trigger or view of its own (\(foreign.sorted().joined(separator: ", ")))",
                context: ENError.Context(file: path))
        }
    }

    private static func tableColumns(_ db: Database) throws -> [String: Set<String>] {
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        var columns: [String: Set<String>] = [:]
        for table in tables { columns[table] = Set(try db.columns(in: table).map(\.name)) }
        return columns
    }

    private static func triggersAndViews(_ db: Database) throws -> Set<String> {
        try String.fetchSet(db, sql: "SELECT type || ' ' || name FROM sqlite_master WHERE type IN ('trigger', 'view')")
    }
}
