import ENCore
import ENTestSupport
import ENVerificationServer
import Foundation
import Testing

/// The storage contract, on every storage (``VerificationStorageKind``): claims under races (two stores, two
/// connections or connection pools, on one database, each code and each token claimed by both at once, and only one
/// claim of each wins), the claim rules in Google's order, API keys, expiry and cleanup.
@Suite("Verification storage")
struct VerificationStorageTests {
    private static let now = Date(timeIntervalSince1970: 1_596_283_200)

    private func code(_ index: Int) -> ENVerificationCodeRecord {
        ENVerificationCodeRecord(
            uuid: UUID().uuidString.lowercased(), codeHMAC: "short-\(index)", longCodeHMAC: "long-\(index)",
            testType: .confirmed, symptomDate: ENVerificationDate("2020-07-30"), expiresAt: Self.now + 900,
            longExpiresAt: Self.now + 86_400, createdAt: Self.now)
    }

    @Test(
        "Two instances racing for each of 40 codes and their tokens: exactly one wins each",
        arguments: VerificationStorageKind.available)
    func racingClaims(kind: VerificationStorageKind) async throws {
        try await kind.with(count: 2) { stores in try await racingClaims(stores[0], stores[1]) }
    }

    private func racingClaims(_ first: any ENVerificationStorage, _ second: any ENVerificationStorage) async throws {
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
    }

    @Test(
        "Claims check expiry, use, type and subject in Google's order; another instance sees the state",
        arguments: VerificationStorageKind.available)
    func claimRules(kind: VerificationStorageKind) async throws {
        try await kind.with(count: 2) { stores in try await claimRules(stores[0], reopened: stores[1]) }
    }

    private func claimRules(_ store: any ENVerificationStorage, reopened: any ENVerificationStorage) async throws {
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

        #expect(try await reopened.claimToken(id: "t", subject: subject, now: Self.now) == .claimed)
        #expect(try await reopened.claimToken(id: "t", subject: subject, now: Self.now) == .used)
        #expect(try await reopened.code(uuid: record.uuid)?.claimed == true)
        #expect(try await reopened.expireCode(uuid: record.uuid, now: Self.now) == .claimed)
        let stored = try #require(try await reopened.code(uuid: record.uuid))
        var expected = record
        expected.claimed = true
        #expect(stored == expected)
    }

    @Test("API keys: stored once by name, found by any of their HMACs", arguments: VerificationStorageKind.available)
    func apiKeys(kind: VerificationStorageKind) async throws {
        try await kind.with(count: 2) { stores in
            let record = ENVerificationAPIKeyRecord(
                name: "lab", type: .admin, preview: "abcdef", keyHMAC: "hmac-1", createdAt: Self.now)
            #expect(try await stores[0].insertAPIKey(record))
            var again = record
            again.keyHMAC = "hmac-2"
            #expect(try await !stores[1].insertAPIKey(again))
            #expect(try await stores[1].apiKey(hmacs: []) == nil)
            #expect(try await stores[1].apiKey(hmacs: ["hmac-2"]) == nil)
            let found = try #require(try await stores[1].apiKey(hmacs: ["old", "hmac-1"]))
            #expect(found.id != 0)
            var expected = record
            expected.id = found.id
            #expect(found == expected)
        }
    }

    @Test(
        "Expiring a code: now, or unchanged when expired, refused when claimed; cleanup recycles then deletes",
        arguments: VerificationStorageKind.available)
    func expiryAndCleanup(kind: VerificationStorageKind) async throws {
        try await kind.with { stores in
            let store = stores[0]
            let (first, second) = (code(1), code(2))
            #expect(try await store.insertCode(first) == .inserted)
            #expect(try await store.insertCode(second) == .inserted)
            #expect(try await store.expireCode(uuid: "nope", now: Self.now) == .notFound)
            guard case .expired(let expired) = try await store.expireCode(uuid: first.uuid, now: Self.now + 10) else {
                Issue.record("the code should have been expired")
                return
            }
            #expect(expired.expiresAt == Self.now + 10 && expired.longExpiresAt == Self.now + 10)
            #expect(try await store.code(uuid: first.uuid) == expired)
            #expect(try await store.expireCode(uuid: first.uuid, now: Self.now + 20) == .expired(expired))
            #expect(
                try await store.claimCode(
                    hmacs: ["long-1"], accepting: [.confirmed], now: Self.now + 20, tokenID: "t1",
                    tokenExpiresAt: Self.now + 100) == .expired)
            guard
                case .claimed = try await store.claimCode(
                    hmacs: ["short-2"], accepting: [.confirmed], now: Self.now, tokenID: "t2",
                    tokenExpiresAt: Self.now + 100)
            else {
                Issue.record("the second code should be claimed")
                return
            }

            // Nothing is old enough yet.
            #expect(
                try await store.deleteExpired(
                    recyclingCodesBefore: Self.now, deletingCodesBefore: Self.now, deletingTokensBefore: Self.now)
                    == ENVerificationCleanup(recycledCodes: 0, deletedCodes: 0, deletedTokens: 0))
            // The first code's HMACs are forgotten, its status stays; then it is deleted, and the token.
            #expect(
                try await store.deleteExpired(
                    recyclingCodesBefore: Self.now + 11, deletingCodesBefore: Self.now,
                    deletingTokensBefore: Self.now)
                    == ENVerificationCleanup(recycledCodes: 1, deletedCodes: 0, deletedTokens: 0))
            let recycled = try #require(try await store.code(uuid: first.uuid))
            #expect(recycled.codeHMAC.isEmpty && recycled.longCodeHMAC.isEmpty)
            #expect(
                try await store.claimCode(
                    hmacs: ["short-1", "long-1"], accepting: [.confirmed], now: Self.now, tokenID: "t3",
                    tokenExpiresAt: Self.now + 100) == .notFound)
            #expect(
                try await store.deleteExpired(
                    recyclingCodesBefore: Self.now + 11, deletingCodesBefore: Self.now + 11,
                    deletingTokensBefore: Self.now + 101)
                    == ENVerificationCleanup(recycledCodes: 0, deletedCodes: 1, deletedTokens: 1))
            #expect(try await store.code(uuid: first.uuid) == nil)
            #expect(try await store.code(uuid: second.uuid)?.claimed == true)
            #expect(
                try await store.claimToken(id: "t2", subject: second.subject, now: Self.now) == .notFound)
        }
    }
}
