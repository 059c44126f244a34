#if PostgreSQL
    package import ENCore
    package import Logging
    package import PostgresNIO

    /// The package's PostgreSQL stores' transactions (the key server's and the verification server's): one place
    /// for the retry rule and the error mapping.
    extension PostgresClient {
        /// How many times a transaction runs at most when PostgreSQL aborts it as a deadlock victim or a serialization
        /// failure.
        package static let enTransactionRetryLimit = 5

        /// Runs `body` in one transaction on a pooled connection, mapping every failure to an `ENError` (an
        /// `ENError` thrown by `body` comes out as it is). A transaction PostgreSQL aborted as a deadlock victim or a
        /// serialization failure (SQLSTATE 40P01, 40001) is run again, up to ``enTransactionRetryLimit`` times in all.
        ///
        /// - Parameters:
        ///   - logger: where the queries and retries are logged.
        ///   - body: the transaction's work on its connection.
        package func enTransaction<Value: Sendable>(
            logger: Logger, _ body: (PostgresConnection) async throws -> Value
        ) async throws(ENError) -> Value {
            try await Self.enRetryingTransient(logger: logger) {
                try await withTransaction(logger: logger) { connection in try await body(connection) }
            }
        }

        /// Runs `work` (a transaction, or one statement that is its own), again when PostgreSQL aborts it as a
        /// deadlock victim or a serialization failure, up to ``enTransactionRetryLimit`` times in all; maps the last
        /// failure to an `ENError` (an `ENError` comes out as it is).
        package static func enRetryingTransient<Value: Sendable>(
            logger: Logger, _ work: () async throws -> Value
        ) async throws(ENError) -> Value {
            var attempt = 1
            while true {
                do {
                    return try await work()
                } catch {
                    if attempt < enTransactionRetryLimit, isTransient(error) {
                        attempt += 1
                        logger.debug("transaction retried", metadata: ["attempt": "\(attempt)"])
                        continue
                    }
                    throw ENError.postgres(error)
                }
            }
        }

        /// Runs `body`'s statements on a pooled connection outside an explicit transaction (no `BEGIN` and `COMMIT`
        /// round trips), mapping every failure to an `ENError` as ``enTransaction(logger:_:)`` does.
        ///
        /// - Parameter body: the work on the connection.
        package func enStatement<Value: Sendable>(
            _ body: (PostgresConnection) async throws -> Value
        ) async throws(ENError) -> Value {
            do {
                return try await withConnection { connection in try await body(connection) }
            } catch {
                throw ENError.postgres(error)
            }
        }

        /// Whether `error` is a deadlock or serialization failure, which running the transaction again resolves.
        package static func isTransient(_ error: any Error) -> Bool {
            if let error = error as? PostgresTransactionError {
                return (error.closureError ?? error.commitError).map(isTransient) ?? false
            }
            guard let error = error as? PSQLError, error.code == .server else { return false }
            return ["40P01", "40001"].contains(error.serverInfo?[.sqlState] ?? "")
        }
    }
#endif
