internal import ENCore
internal import Foundation
internal import GRDB

extension ENError {
    /// Maps any error thrown inside a database access to an `ENError` that names the store and the failure.
    static func store(_ error: any Error, path: String) -> ENError {
        if let error = error as? ENError { return error }
        guard let error = error as? DatabaseError else {
            return ENError(.internal, "store \(path): \(error)")
        }
        let detail = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT:
            return ENError(.badFormat, "store \(path) is not a readable database file: \(detail)")
        case .SQLITE_FULL:
            return ENError(.insufficientStorage, "store \(path): the disk is full: \(detail)")
        case .SQLITE_NOMEM:
            return ENError(.insufficientMemory, "store \(path): out of memory: \(detail)")
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH:
            return ENError(.dataInaccessible, "store \(path) cannot be opened or written: \(detail)")
        case .SQLITE_CONSTRAINT:
            return ENError(.badParameter, "store \(path): a value breaks a constraint: \(detail)")
        default:
            return ENError(.internal, "store \(path): SQLite error \(error.resultCode.rawValue): \(detail)")
        }
    }
}
