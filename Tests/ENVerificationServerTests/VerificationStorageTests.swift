import ENCore
import ENTestSupport
import ENVerificationServer
import Foundation
import Testing

/// The SQLite store's claims under races: two stores (two connections) on one file, each code and each token
/// claimed by both at once, and only one claim of each wins.
@Suite("Verification storage")
struct VerificationStorageTests {
    private static let now = Date(timeIntervalSince1970: 1_596_283_200)

    private func code(_ index: Int) -> ENVerificationCodeRecord {
        ENVerificationCodeRecord(
            uuid: UUID().uuidString.lowercased(), codeHMAC: "short-\(index)", longCodeHMAC: "long-\(index)",
            testType: .confirmed, symptomDate: ENVerificationDate("2020-07-30"), expiresAt: Self.now + 900,
            longExpiresAt: Self.now + 86_400, createdAt: Self.now)
    }

    @Test("Two connections racing for each of 40 codes and their tokens: exactly one wins each")
    func racingClaims() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("verification.sqlite")
        let first = try ENVerificationSQLiteStore(path: path)
        let second = try ENVerificationSQLiteStore(path: path)
        let count = 40
        for index in 0..<count { #expect(try await first.insertCode(code(index)) == .inserted) }

        let codeWins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                for (store, name) in [(first, "a"), (second, "b")] {
                    group.addTask {
                        let claim = try await store.claimCode(
                            hmacs: [index.isMultiple(of: 2) ? "short-\(index)" : "long-\(index)"],
                            accepting: [.confirmed], now: Self.now, tokenID: "token-\(index)-\(name)",
                            tokenExpiresAt: Self.now + 86_400)
                        if case .claimed = claim { return true }
                        #expect(claim == .used)
                        return false
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(codeWins == count)

        // Each winning token, claimed by both stores at once: one wins.
        let tokenWins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                for name in ["a", "b"] {
                    for store in [first, second] {
                        group.addTask {
                            let claim = try await store.claimToken(
                                id: "token-\(index)-\(name)",
                                subject: ENVerificationSubject(
                                    testType: .confirmed, symptomDate: ENVerificationDate("2020-07-30")),
                                now: Self.now)
                            return claim == .claimed
                        }
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(tokenWins == count)
        try first.close()
        try second.close()
    }

    @Test("Claims check expiry, use, type and subject in Google's order; the state survives reopening")
    func claimRules() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("verification.sqlite")
        let store = try ENVerificationSQLiteStore(path: path)
        let record = code(1)
        #expect(try await store.insertCode(record) == .inserted)
        #expect(try await store.insertCode(record) == .uuidTaken)
        var collision = code(1)
        collision.uuid = UUID().uuidString.lowercased()
        #expect(try await store.insertCode(collision) == .codeTaken)

        func claim(_ hmac: String, _ types: Set<ENVerificationTestType> = [.confirmed], at offset: TimeInterval = 0)
            async throws -> ENVerificationCodeClaim
        {
            try await store.claimCode(
                hmacs: [hmac], accepting: types, now: Self.now + offset, tokenID: "t", tokenExpiresAt: Self.now + 100)
        }
        #expect(try await claim("nope") == .notFound)
        #expect(try await claim("short-1", at: 900) == .expired)
        #expect(try await claim("short-1", [.likely]) == .unsupportedTestType)
        guard case .claimed(let token) = try await claim("long-1", at: 900) else {
            Issue.record("the long code should still be valid")
            return
        }
        #expect(token.subject == record.subject)
        #expect(try await claim("short-1") == .used)
        #expect(try await claim("short-1", at: 901) == .expired)

        let subject = record.subject
        #expect(
            try await store.claimToken(id: "t", subject: ENVerificationSubject(testType: .likely), now: Self.now)
                == .subjectMismatch)
        #expect(try await store.claimToken(id: "t", subject: subject, now: Self.now + 100) == .expired)
        #expect(try await store.claimToken(id: "x", subject: subject, now: Self.now) == .notFound)
        try store.close()

        let reopened = try ENVerificationSQLiteStore(path: path)
        #expect(try await reopened.claimToken(id: "t", subject: subject, now: Self.now) == .claimed)
        #expect(try await reopened.claimToken(id: "t", subject: subject, now: Self.now) == .used)
        #expect(try await reopened.code(uuid: record.uuid)?.claimed == true)
        #expect(try await reopened.expireCode(uuid: record.uuid, now: Self.now) == .claimed)
        try reopened.close()
    }
}
