#if PostgreSQL
    package import ENCore
    import PostgresNIO
    import _ConnectionPoolModule

    extension ENError {
        /// Maps a failure of a PostgreSQL transaction to an `ENError`: an `ENError` thrown inside comes out as it
        /// is; PostgreSQL's own errors by their SQLSTATE class.
        package static func postgres(_ error: any Error) -> ENError {
            if let error = error as? ENError { return error }
            if let error = error as? PostgresTransactionError {
                if let inner = error.closureError ?? error.beginError ?? error.commitError { return postgres(inner) }
                return ENError(.internal, "PostgreSQL: the transaction failed")
            }
            if let error = error as? ConnectionPoolError {
                // Connections failed for a minute (postgres-nio's circuit breaker): refused, unreachable or a bad login.
                return ENError(
                    .dataInaccessible, "PostgreSQL cannot be reached or refuses the login: \(String(reflecting: error))"
                )
            }
            guard let error = error as? PSQLError else {
                if error is CancellationError { return ENError(.internal, "PostgreSQL: the request was cancelled") }
                return ENError(.internal, "PostgreSQL: \(String(reflecting: error))")
            }
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState] ?? "?????"
                let message = error.serverInfo?[.message] ?? "no message"
                let detail = "PostgreSQL error \(state): \(message)"
                switch state {
                case "53100": return ENError(.insufficientStorage, "the database's disk is full: \(detail)")
                case "53200": return ENError(.insufficientMemory, "the database is out of memory: \(detail)")
                case "42P01", "42703": return ENError(.badFormat, "the database lacks the store's tables: \(detail)")
                default: break
                }
                if state.hasPrefix("23") { return ENError(.badParameter, "a value breaks a constraint: \(detail)") }
                if state.hasPrefix("28") || state.hasPrefix("3D") || state.hasPrefix("08") || state == "53300"
                    || state.hasPrefix("57")
                {
                    return ENError(.dataInaccessible, "the database refused the connection: \(detail)")
                }
                return ENError(.internal, detail)
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .sslUnsupported,
                .failedToAddSSLHandler, .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError,
                .uncleanShutdown:
                return ENError(.dataInaccessible, "PostgreSQL is unreachable: \(String(reflecting: error))")
            default:
                return ENError(.internal, "PostgreSQL: \(String(reflecting: error))")
            }
        }
    }
#endif
