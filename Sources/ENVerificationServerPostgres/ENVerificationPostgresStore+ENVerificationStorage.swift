#if PostgreSQL
    public import ENCore
    public import ENVerificationServer
    public import Foundation
    import Logging
    import PostgresNIO

    /// The storage primitives on PostgreSQL, with the SQLite store's rules (`ENVerificationStorage`
    /// documents them), each one transaction.
    extension ENVerificationPostgresStore {
        /// The columns of a code, in the order ``code(_:)`` decodes them.
        static let codeColumns = """
            uuid, code, long_code, claimed, test_type, symptom_date, test_date, expires_at, long_expires_at,
            issuing_api_key_id, issuing_external_id, created_at
            """

        /// A code row as decoded.
        typealias CodeRow = (
            String, String?, String?, Bool, String, String?, String?, Date, Date, Int64?, String, Date
        )

        // MARK: Codes

        /// Stores a new code, under the insert lock.
        public func insertCode(_ record: ENVerificationCodeRecord) async throws(ENError) -> ENVerificationCodeInsertion
        {
            try await transaction { connection, logger in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(VerificationPostgresSchema.insertLock))", logger: logger)
                let uuidRows = try await connection.query(
                    "SELECT 1 FROM verification_codes WHERE uuid = \(record.uuid)", logger: logger)
                for try await _ in uuidRows.decode(Int32.self) { return .uuidTaken }
                let hmacs = [record.codeHMAC, record.longCodeHMAC]
                let codeRows = try await connection.query(
                    "SELECT 1 FROM verification_codes WHERE code = ANY(\(hmacs)) OR long_code = ANY(\(hmacs)) LIMIT 1",
                    logger: logger)
                for try await _ in codeRows.decode(Int32.self) { return .codeTaken }
                try await connection.query(
                    """
                    INSERT INTO verification_codes (uuid, code, long_code, claimed, test_type, symptom_date, test_date,
                        expires_at, long_expires_at, issuing_api_key_id, issuing_external_id, created_at)
                    VALUES (\(record.uuid), \(record.codeHMAC), \(record.longCodeHMAC), \(record.claimed),
                        \(record.testType.rawValue), \(record.symptomDate?.description), \(record.testDate?.description),
                        \(record.expiresAt), \(record.longExpiresAt), \(record.issuingAPIKeyID),
                        \(record.externalIssuerID), \(record.createdAt))
                    """, logger: logger)
                return .inserted
            }
        }

        /// Exchanges a code for a token, atomically: the code's row is locked (`FOR UPDATE`) while it is checked,
        /// marked claimed only while unclaimed, and its token stored in the same transaction.
        public func claimCode(
            hmacs: [String], accepting: Set<ENVerificationTestType>, now: Date, tokenID: String, tokenExpiresAt: Date
        ) async throws(ENError) -> ENVerificationCodeClaim {
            guard !hmacs.isEmpty else { return .notFound }
            return try await transaction { connection, logger in
                guard
                    let record = try await Self.code(
                        on: connection, logger: logger, where: "code = ANY($1) OR long_code = ANY($1) LIMIT 1",
                        hmacs, forUpdate: true)
                else { return .notFound }
                let expiry = hmacs.contains(record.codeHMAC) ? record.expiresAt : record.longExpiresAt
                guard expiry > now else { return .expired }
                guard !record.claimed else { return .used }
                guard accepting.contains(record.testType) else { return .unsupportedTestType }
                let updated = try await Self.rowCount(
                    connection.query(
                        "UPDATE verification_codes SET claimed = TRUE WHERE uuid = \(record.uuid) AND NOT claimed RETURNING id",
                        logger: logger))
                guard updated == 1 else { return .used }
                try await connection.query(
                    """
                    INSERT INTO verification_tokens (token_id, test_type, symptom_date, test_date, used, expires_at)
                    VALUES (\(tokenID), \(record.testType.rawValue), \(record.symptomDate?.description),
                        \(record.testDate?.description), FALSE, \(tokenExpiresAt))
                    """, logger: logger)
                return .claimed(
                    ENVerificationTokenRecord(tokenID: tokenID, subject: record.subject, expiresAt: tokenExpiresAt))
            }
        }

        /// Marks a token used, atomically (its row locked while it is checked, updated only while unused).
        public func claimToken(id: String, subject: ENVerificationSubject, now: Date) async throws(ENError)
            -> ENVerificationTokenClaim
        {
            try await transaction { connection, logger in
                var found: (ENVerificationSubject, Bool, Date)?
                let rows = try await connection.query(
                    """
                    SELECT test_type, symptom_date, test_date, used, expires_at FROM verification_tokens
                    WHERE token_id = \(id) FOR UPDATE
                    """, logger: logger)
                for try await (type, symptom, test, used, expires) in rows.decode(
                    (String, String?, String?, Bool, Date).self)
                {
                    found = (
                        try ENVerificationSubject(storedTestType: type, symptomDate: symptom, testDate: test), used,
                        expires
                    )
                }
                guard let (stored, used, expiresAt) = found else { return .notFound }
                guard expiresAt > now else { return .expired }
                guard !used else { return .used }
                guard stored == subject else { return .subjectMismatch }
                let updated = try await Self.rowCount(
                    connection.query(
                        "UPDATE verification_tokens SET used = TRUE WHERE token_id = \(id) AND NOT used RETURNING id",
                        logger: logger))
                return updated == 1 ? .claimed : .used
            }
        }

        /// The code with this UUID.
        public func code(uuid: String) async throws(ENError) -> ENVerificationCodeRecord? {
            try await statement { connection, logger in
                try await Self.code(on: connection, logger: logger, where: "uuid = $1", uuid, forUpdate: false)
            }
        }

        /// Expires the code with this UUID now (its row locked while it is checked).
        public func expireCode(uuid: String, now: Date) async throws(ENError) -> ENVerificationCodeExpiry {
            try await transaction { connection, logger in
                guard
                    var record = try await Self.code(
                        on: connection, logger: logger, where: "uuid = $1", uuid, forUpdate: true)
                else { return .notFound }
                if record.isExpired(at: now) { return .expired(record) }
                guard !record.claimed else { return .claimed }
                try await connection.query(
                    "UPDATE verification_codes SET expires_at = \(now), long_expires_at = \(now) WHERE uuid = \(uuid)",
                    logger: logger)
                record.expiresAt = now
                record.longExpiresAt = now
                return .expired(record)
            }
        }

        /// Recycles and deletes what has expired, as Google's cleanup does, in one transaction.
        public func deleteExpired(
            recyclingCodesBefore recycleDate: Date, deletingCodesBefore codeDate: Date,
            deletingTokensBefore tokenDate: Date
        ) async throws(ENError) -> ENVerificationCleanup {
            try await transaction { connection, logger in
                func count(_ query: PostgresQuery) async throws -> Int {
                    var total = 0
                    for try await value in try await connection.query(query, logger: logger).decode(Int64.self) {
                        total = Int(value)
                    }
                    return total
                }
                let recycled = try await count(
                    """
                    WITH changed AS (
                        UPDATE verification_codes SET code = NULL, long_code = NULL
                        WHERE expires_at < \(recycleDate) AND long_expires_at < \(recycleDate)
                            AND (code IS NOT NULL OR long_code IS NOT NULL)
                        RETURNING 1)
                    SELECT count(*) FROM changed
                    """)
                let codes = try await count(
                    """
                    WITH gone AS (
                        DELETE FROM verification_codes WHERE expires_at < \(codeDate) AND long_expires_at < \(codeDate)
                        RETURNING 1)
                    SELECT count(*) FROM gone
                    """)
                let tokens = try await count(
                    """
                    WITH gone AS (DELETE FROM verification_tokens WHERE expires_at < \(tokenDate) RETURNING 1)
                    SELECT count(*) FROM gone
                    """)
                return ENVerificationCleanup(recycledCodes: recycled, deletedCodes: codes, deletedTokens: tokens)
            }
        }

        // MARK: API keys

        /// Stores an API key under the insert lock; `false` when its name is taken.
        public func insertAPIKey(_ record: ENVerificationAPIKeyRecord) async throws(ENError) -> Bool {
            try await transaction { connection, logger in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(VerificationPostgresSchema.insertLock))", logger: logger)
                let rows = try await connection.query(
                    "SELECT 1 FROM verification_api_keys WHERE name = \(record.name)", logger: logger)
                for try await _ in rows.decode(Int32.self) { return false }
                try await connection.query(
                    """
                    INSERT INTO verification_api_keys (name, type, preview, key_hmac, created_at)
                    VALUES (\(record.name), \(Int64(record.type.rawValue)), \(record.preview), \(record.keyHMAC),
                        \(record.createdAt))
                    """, logger: logger)
                return true
            }
        }

        /// The API key stored under one of `hmacs`.
        public func apiKey(hmacs: [String]) async throws(ENError) -> ENVerificationAPIKeyRecord? {
            guard !hmacs.isEmpty else { return nil }
            return try await statement { connection, logger in
                let rows = try await connection.query(
                    """
                    SELECT id, name, type, preview, key_hmac, created_at FROM verification_api_keys
                    WHERE key_hmac = ANY(\(hmacs)) LIMIT 1
                    """, logger: logger)
                var found: ENVerificationAPIKeyRecord?
                for try await (id, name, type, preview, hmac, created) in rows.decode(
                    (Int64, String, Int64, String, String, Date).self)
                {
                    guard let kind = ENVerificationAPIKeyType(rawValue: Int(type)) else {
                        throw ENError.badFormat("an API key of unknown type \(type)")
                    }
                    found = ENVerificationAPIKeyRecord(
                        id: id, name: name, type: kind, preview: preview, keyHMAC: hmac, createdAt: created)
                }
                return found
            }
        }

        // MARK: Rows

        /// The code `condition` (with `value` as `$1`) finds, its row locked to the transaction's end when
        /// `forUpdate`.
        private static func code(
            on connection: PostgresConnection, logger: Logger, where condition: String,
            _ value: some PostgresNonThrowingEncodable, forUpdate: Bool
        ) async throws -> ENVerificationCodeRecord? {
            var bindings = PostgresBindings()
            bindings.append(value)
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(codeColumns) FROM verification_codes WHERE \(condition)"
                        + (forUpdate ? " FOR UPDATE" : ""), binds: bindings), logger: logger)
            var found: ENVerificationCodeRecord?
            for try await row in rows.decode(CodeRow.self) { found = try code(row) }
            return found
        }

        /// How many rows a statement with `RETURNING id` returned.
        private static func rowCount(_ rows: PostgresRowSequence) async throws -> Int {
            var count = 0
            for try await _ in rows.decode(Int64.self) { count += 1 }
            return count
        }

        private static func code(_ row: CodeRow) throws(ENError) -> ENVerificationCodeRecord {
            let subject = try ENVerificationSubject(storedTestType: row.4, symptomDate: row.5, testDate: row.6)
            return ENVerificationCodeRecord(
                uuid: row.0, codeHMAC: row.1 ?? "", longCodeHMAC: row.2 ?? "", claimed: row.3,
                testType: subject.testType, symptomDate: subject.symptomDate, testDate: subject.testDate,
                expiresAt: row.7, longExpiresAt: row.8, issuingAPIKeyID: row.9, externalIssuerID: row.10,
                createdAt: row.11)
        }
    }
#endif
