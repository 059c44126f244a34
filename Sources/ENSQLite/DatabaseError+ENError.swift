package import ENCore
internal import Foundation
internal import GRDB

extension ENError {
    /// Maps any error thrown inside a database access to an `ENError` with the store's path as its context's
    /// file (an `ENError` from below keeps its own context and gains the file).
    package static func store(_ error: any Error, path: String) -> ENError {
        // An in-memory store has no file to name.
        let file = path == ":memory:" ? ENError.Context() : ENError.Context(file: path)
        if let error = error as? ENError { return error.adding(file) }
        if let error = error as? RowDecodingError {
            // A value of the wrong type or NULL where the schema promises one: a damaged or hostile file.
            return ENError(.badFormat, "a stored value does not read back: \(error)", context: file)
        }
        guard let error = error as? DatabaseError else {
            return ENError(.internal, "\(error)", context: file)
        }
        let detail = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT:
            return ENError(.badFormat, "not a readable database file: \(detail)", context: file)
        case .SQLITE_FULL:
            return ENError(.insufficientStorage, "the disk is full: \(detail)", context: file)
        case .SQLITE_NOMEM:
            return ENError(.insufficientMemory, "out of memory: \(detail)", context: file)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH:
            return ENError(.dataInaccessible, "cannot be opened or written: \(detail)", context: file)
        case .SQLITE_CONSTRAINT:
            return ENError(.badParameter, "a value breaks a constraint: \(detail)", context: file)
        default:
            return ENError(.internal, "SQLite error \(error.resultCode.rawValue): \(detail)", context: file)
        }
    }
}
