public import ENKeyServer

/// The export primitives on SQLite: claiming, reading, completing and releasing batches
/// (`ENKeyServerSQLiteStore+Batches.swift`), the files and retention (`ENKeyServerSQLiteStore+Files.swift`).
extension ENKeyServerSQLiteStore: ENKeyServerExportStorage {}
