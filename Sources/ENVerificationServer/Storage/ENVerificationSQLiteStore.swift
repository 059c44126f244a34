public import ENCore
internal import ENSQLite
public import Foundation
internal import GRDB

/// A verification server's storage in one SQLite file (or in memory), on the package's SQLite plumbing: the file
/// in write-ahead-log mode, checked and migrated when opened.
///
/// Every claim is one `BEGIN IMMEDIATE` transaction that reads the row and updates it only if the checks pass,
/// so that two stores (two connections, two processes) on one file never both accept one code or one token.
public final class ENVerificationSQLiteStore: ENVerificationStorage {
    let database: ENSQLiteDatabase

    /// Opens (creating if needed) the store in the file at `path`.
    ///
    /// - Throws: an `ENError` when the file is not a store of this kind, or is damaged, or cannot be opened.
    public init(path: String) throws(ENError) {
        database = try ENSQLiteDatabase(path: path, schema: VerificationSchema.schema)
    }

    /// Opens an empty store in memory.
    public init() throws(ENError) {
        database = try ENSQLiteDatabase(inMemory: VerificationSchema.schema)
    }

    /// The file, or `nil` in memory.
    public var path: String? { database.path }

    /// Closes the store.
    public func close() throws(ENError) { try database.close() }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: the write lock is taken before anything is read.
    private func immediateTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T)
        async throws(ENError) -> T
    {
        try await database.write(ENSQLiteWriteMode(transactional: false)) { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(db)
                return .commit
            }
            return result!
        }
    }

    // MARK: Codes

    /// Stores a new code.
    public func insertCode(_ record: ENVerificationCodeRecord) async throws(ENError) -> ENVerificationCodeInsertion {
        try await immediateTransaction { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM verification_codes WHERE uuid = ?", arguments: [record.uuid])
                != nil
            {
                return .uuidTaken
            }
            let taken = try Bool.fetchOne(
                db,
                sql: """
                    SELECT 1 FROM verification_codes
                    WHERE code IN (?, ?) OR long_code IN (?, ?) LIMIT 1
                    """,
                arguments: [record.codeHMAC, record.longCodeHMAC, record.codeHMAC, record.longCodeHMAC])
            guard taken == nil else { return .codeTaken }
            try db.execute(
                sql: """
                    INSERT INTO verification_codes (uuid, code, long_code, claimed, test_type, symptom_date,
                        test_date, expires_at, long_expires_at, issuing_api_key_id, issuing_external_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.uuid, record.codeHMAC, record.longCodeHMAC, record.claimed, record.testType.rawValue,
                    record.symptomDate?.description, record.testDate?.description,
                    record.expiresAt.timeIntervalSince1970, record.longExpiresAt.timeIntervalSince1970,
                    record.issuingAPIKeyID, record.externalIssuerID, record.createdAt.timeIntervalSince1970,
                ])
            return .inserted
        }
    }

    /// Exchanges a code for a token, atomically.
    public func claimCode(
        hmacs: [String], accepting: Set<ENVerificationTestType>, now: Date, tokenID: String, tokenExpiresAt: Date
    ) async throws(ENError) -> ENVerificationCodeClaim {
        guard !hmacs.isEmpty else { return .notFound }
        return try await immediateTransaction { db in
            let marks = Array(repeating: "?", count: hmacs.count).joined(separator: ", ")
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT * FROM verification_codes WHERE code IN (\(marks)) OR long_code IN (\(marks)) LIMIT 1",
                    arguments: StatementArguments(hmacs + hmacs))
            else { return .notFound }
            let record = try Self.code(row)
            let expiry = hmacs.contains(record.codeHMAC) ? record.expiresAt : record.longExpiresAt
            guard expiry > now else { return .expired }
            guard !record.claimed else { return .used }
            guard accepting.contains(record.testType) else { return .unsupportedTestType }
            try db.execute(
                sql: "UPDATE verification_codes SET claimed = 1 WHERE uuid = ? AND claimed = 0",
                arguments: [record.uuid])
            guard db.changesCount == 1 else { return .used }
            let token = ENVerificationTokenRecord(
                tokenID: tokenID, subject: record.subject, expiresAt: tokenExpiresAt)
            try db.execute(
                sql: """
                    INSERT INTO verification_tokens (token_id, test_type, symptom_date, test_date, used, expires_at)
                    VALUES (?, ?, ?, ?, 0, ?)
                    """,
                arguments: [
                    tokenID, record.testType.rawValue, record.symptomDate?.description, record.testDate?.description,
                    tokenExpiresAt.timeIntervalSince1970,
                ])
            return .claimed(token)
        }
    }

    /// Marks a token used, atomically.
    public func claimToken(id: String, subject: ENVerificationSubject, now: Date) async throws(ENError)
        -> ENVerificationTokenClaim
    {
        try await immediateTransaction { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM verification_tokens WHERE token_id = ?", arguments: [id])
            else { return .notFound }
            let expiresAt = Date(timeIntervalSince1970: row["expires_at"])
            guard expiresAt > now else { return .expired }
            guard !(row["used"] as Bool) else { return .used }
            let stored = try Self.subject(row)
            guard stored == subject else { return .subjectMismatch }
            try db.execute(
                sql: "UPDATE verification_tokens SET used = 1 WHERE token_id = ? AND used = 0", arguments: [id])
            return db.changesCount == 1 ? .claimed : .used
        }
    }

    /// The code with this UUID.
    public func code(uuid: String) async throws(ENError) -> ENVerificationCodeRecord? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM verification_codes WHERE uuid = ?", arguments: [uuid]).map(
                Self.code)
        }
    }

    /// Expires the code with this UUID now.
    public func expireCode(uuid: String, now: Date) async throws(ENError) -> ENVerificationCodeExpiry {
        try await immediateTransaction { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM verification_codes WHERE uuid = ?", arguments: [uuid])
            else { return .notFound }
            var record = try Self.code(row)
            if record.isExpired(at: now) { return .expired(record) }
            guard !record.claimed else { return .claimed }
            record.expiresAt = now
            record.longExpiresAt = now
            try db.execute(
                sql: "UPDATE verification_codes SET expires_at = ?, long_expires_at = ? WHERE uuid = ?",
                arguments: [now.timeIntervalSince1970, now.timeIntervalSince1970, uuid])
            return .expired(record)
        }
    }

    /// Recycles and deletes what has expired, as Google's cleanup does.
    public func deleteExpired(
        recyclingCodesBefore recycleDate: Date, deletingCodesBefore codeDate: Date, deletingTokensBefore tokenDate: Date
    ) async throws(ENError) -> ENVerificationCleanup {
        try await immediateTransaction { db in
            try db.execute(
                sql: """
                    UPDATE verification_codes SET code = NULL, long_code = NULL
                    WHERE expires_at < ? AND long_expires_at < ? AND (code IS NOT NULL OR long_code IS NOT NULL)
                    """,
                arguments: [recycleDate.timeIntervalSince1970, recycleDate.timeIntervalSince1970])
            let recycled = db.changesCount
            try db.execute(
                sql: "DELETE FROM verification_codes WHERE expires_at < ? AND long_expires_at < ?",
                arguments: [codeDate.timeIntervalSince1970, codeDate.timeIntervalSince1970])
            let deletedCodes = db.changesCount
            try db.execute(
                sql: "DELETE FROM verification_tokens WHERE expires_at < ?",
                arguments: [tokenDate.timeIntervalSince1970])
            return ENVerificationCleanup(
                recycledCodes: recycled, deletedCodes: deletedCodes, deletedTokens: db.changesCount)
        }
    }

    // MARK: API keys

    /// Stores an API key; `false` when its name is taken.
    public func insertAPIKey(_ record: ENVerificationAPIKeyRecord) async throws(ENError) -> Bool {
        try await immediateTransaction { db in
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM verification_api_keys WHERE name = ?", arguments: [record.name])
                != nil
            {
                return false
            }
            try db.execute(
                sql: """
                    INSERT INTO verification_api_keys (name, type, preview, key_hmac, created_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.name, record.type.rawValue, record.preview, record.keyHMAC,
                    record.createdAt.timeIntervalSince1970,
                ])
            return true
        }
    }

    /// The API key stored under one of `hmacs`.
    public func apiKey(hmacs: [String]) async throws(ENError) -> ENVerificationAPIKeyRecord? {
        guard !hmacs.isEmpty else { return nil }
        return try await database.read { db in
            let marks = Array(repeating: "?", count: hmacs.count).joined(separator: ", ")
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM verification_api_keys WHERE key_hmac IN (\(marks)) LIMIT 1",
                    arguments: StatementArguments(hmacs))
            else { return nil }
            guard let type = ENVerificationAPIKeyType(rawValue: row["type"]) else {
                throw ENError.badFormat("an API key of unknown type \(row["type"] as Int)")
            }
            return ENVerificationAPIKeyRecord(
                id: row["id"], name: row["name"], type: type, preview: row["preview"], keyHMAC: row["key_hmac"],
                createdAt: Date(timeIntervalSince1970: row["created_at"]))
        }
    }

    // MARK: Rows

    private static func code(_ row: Row) throws -> ENVerificationCodeRecord {
        let subject = try subject(row)
        return ENVerificationCodeRecord(
            uuid: row["uuid"], codeHMAC: row["code"] ?? "", longCodeHMAC: row["long_code"] ?? "",
            claimed: row["claimed"],
            testType: subject.testType, symptomDate: subject.symptomDate, testDate: subject.testDate,
            expiresAt: Date(timeIntervalSince1970: row["expires_at"]),
            longExpiresAt: Date(timeIntervalSince1970: row["long_expires_at"]),
            issuingAPIKeyID: row["issuing_api_key_id"], externalIssuerID: row["issuing_external_id"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    private static func subject(_ row: Row) throws -> ENVerificationSubject {
        try ENVerificationSubject(
            storedTestType: row["test_type"] as String, symptomDate: row["symptom_date"] as String?,
            testDate: row["test_date"] as String?)
    }
}
