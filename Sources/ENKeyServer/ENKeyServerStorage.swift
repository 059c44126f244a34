/// A key server's storage, as the server's logic uses it: a few dialect-neutral, `async` primitives, each one
/// transaction, so that the same server runs on SQLite (``ENKeyServerStore``) or another database.
public protocol ENKeyServerStorage: ENKeyServerExportStorage {}
