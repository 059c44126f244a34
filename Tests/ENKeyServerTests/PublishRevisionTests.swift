import ENCore
import ENCrypto
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import Foundation
import Testing

/// Revisions and revision tokens as Google's `InsertAndReviseExposures`, `Revise` and `internal/revision` make
/// them (reference §4).
@Suite("Publish revisions")
struct PublishRevisionTests {
    /// Handlers for several report types on one store, clock and token key set.
    private struct Server {
        let clock = TestClock()
        let store: ENKeyServerSQLiteStore
        let tokenKeys: ENRevisionTokenKeys

        init(tokenKeys: ENRevisionTokenKeys? = nil) throws {
            let clock = self.clock
            store = try ENKeyServerSQLiteStore(clock: { clock.now })
            self.tokenKeys = try tokenKeys ?? ENRevisionTokenKeys.generate()
        }

        func app(
            _ type: ENDiagnosisReportType?, bypassesRevisionToken: Bool = false,
            configure: (inout ENPublishConfiguration) -> Void = { _ in }
        ) throws -> PublishTest {
            try PublishTest(
                clock: clock, verifier: FixedVerifier(claims: type.map { ENVerifiedClaims(reportType: $0) }),
                bypassesRevisionToken: bypassesRevisionToken, tokenKeys: tokenKeys, store: store, configure: configure)
        }

        func stored(_ n: Int) async throws -> ENStoredDiagnosisKey? {
            try await store.storedKeys(withKeyData: [keyData(n)]).first
        }
    }

    @Test func revisesWithTheTokenWhichStaysValid() async throws {
        let server = try Server()
        let first = try await server.app(.confirmedClinicalDiagnosis).publish([sentKey(1), sentKey(2, daysAgo: 2)])
        #expect(first.response.insertedExposures == 2)
        let token = first.response.revisionToken
        server.clock.advance(by: 2 * 3600)
        let confirmed = try server.app(.confirmedTest)

        // Stored keys sent again without a token: refused, nothing changes.
        let missing = await confirmed.publish([sentKey(1)])
        #expect(missing.status == 400)
        #expect(missing.response.code == .missingRevisionToken)
        #expect(try await server.stored(1)?.revision == nil)

        let revised = await confirmed.publish([sentKey(1), sentKey(3)], token: token)
        #expect(revised.status == 200)
        #expect(revised.response.insertedExposures == 1)
        #expect(!revised.response.revisionToken.isEmpty)
        let revision = try #require(try await server.stored(1)?.revision)
        #expect(revision.reportType == .confirmedTest)
        #expect(revision.daysSinceOnsetOfSymptoms == 3)
        #expect(revision.revisedAt == Date(enIntervalNumber: today).addingTimeInterval(8 * 3600))
        // The original stays as it was published.
        #expect(try await server.stored(1)?.key.diagnosisReportType == .confirmedClinicalDiagnosis)

        // The old token still works (not single-use): the same revision again is no change.
        let replay = await confirmed.publish([sentKey(1)], token: token)
        #expect(replay.status == 200)
        #expect(replay.response.insertedExposures == 0)
        #expect(try await server.stored(1)?.revision == revision)

        // The new token lists the old token's keys and the new one.
        let newToken = revised.response.revisionToken
        let negative = try await server.app(.revoked).publish([sentKey(2, daysAgo: 2)], token: newToken)
        #expect(negative.status == 200)
        #expect(try await server.stored(2)?.revision?.reportType == .revoked)
        #expect(await confirmed.publish([sentKey(3)], token: newToken).status == 200)
        #expect(await confirmed.publish([sentKey(3)]).response.code == .missingRevisionToken)
        // A key revised once cannot be revised again.
        let again = try await server.app(.revoked).publish([sentKey(1)], token: revised.response.revisionToken)
        #expect(again.status == 400)
        #expect(again.response.code == .keyAlreadyRevised)
        #expect(try await server.stored(1)?.revision?.reportType == .confirmedTest)
    }

    @Test(arguments: [
        (ENDiagnosisReportType?.none, ENDiagnosisReportType.confirmedTest, true),
        (.confirmedClinicalDiagnosis, .revoked, true),
        (.confirmedClinicalDiagnosis, .selfReported, false),
        (.selfReported, .confirmedClinicalDiagnosis, true),
        (.selfReported, .revoked, true),
        (.confirmedTest, .confirmedClinicalDiagnosis, false),
        (.confirmedTest, .revoked, false),
        (.revoked, .confirmedTest, true),  // a negative key never published is stored as new
    ])
    func allowsOnlyGooglesReportTypeTransitions(
        _ from: ENDiagnosisReportType?, _ to: ENDiagnosisReportType, _ allowed: Bool
    ) async throws {
        let server = try Server()
        let token = try await server.app(from).publish([sentKey(1)]).response.revisionToken
        let reply = try await server.app(to).publish([sentKey(1)], token: token)
        #expect(reply.status == (allowed ? 200 : 400))
        #expect(reply.response.code == (allowed ? nil : .invalidReportTypeTransition))
        if !allowed { #expect(try await server.stored(1)?.revision == nil) }
    }

    @Test func refusesTokensThatDoNotOpenOrDoNotListTheKeys() async throws {
        let server = try Server()
        let app = try server.app(.confirmedClinicalDiagnosis)
        let token = await app.publish([sentKey(1)]).response.revisionToken
        let confirmed = try server.app(.confirmedTest)

        // Base64 that does not open: invalid. Not base64: ignored, so missing.
        let garbage = Data(repeating: 7, count: 80).base64EncodedString()
        #expect(await confirmed.publish([sentKey(1)], token: garbage).response.code == .invalidRevisionToken)
        #expect(await confirmed.publish([sentKey(1)], token: "!!!").response.code == .missingRevisionToken)
        // Sealed with a key the server does not have.
        let stranger = try Server().app(.confirmedClinicalDiagnosis)
        let foreign = await stranger.publish([sentKey(1)]).response.revisionToken
        #expect(await confirmed.publish([sentKey(1)], token: foreign).response.code == .invalidRevisionToken)
        // A token of other keys.
        let other = await app.publish([sentKey(9, daysAgo: 3)]).response.revisionToken
        let notListed = await confirmed.publish([sentKey(1)], token: other)
        #expect(notListed.status == 400)
        #expect(notListed.response.code == .invalidRevisionToken)
        #expect(try await server.stored(1)?.revision == nil)
        // A token that does not open does not matter when every key is new.
        let fresh = await confirmed.publish([sentKey(5)], token: garbage)
        #expect(fresh.status == 200)
        #expect(fresh.response.insertedExposures == 1)
        // With a good token, the revision goes through.
        #expect(await confirmed.publish([sentKey(1)], token: token).status == 200)
    }

    @Test func refusesKeysWhoseIntervalsDifferFromTheStoredOnes() async throws {
        let server = try Server()
        let token = try await server.app(.confirmedClinicalDiagnosis).publish([sentKey(1)]).response.revisionToken
        let confirmed = try server.app(.confirmedTest)
        // The sent key's intervals differ: Google answers internal_error (its error is not mapped).
        let sent = await confirmed.publish([sentKey(1, period: 100)], token: token)
        #expect(sent.status == 400)
        #expect(sent.response.code == .internalError)
        // The token's intervals differ from the stored key's.
        let elsewhere = try Server(tokenKeys: server.tokenKeys)
        #expect(try await elsewhere.app(.confirmedClinicalDiagnosis).publish([sentKey(1, daysAgo: 2)]).status == 200)
        let mismatch = try await elsewhere.app(.confirmedTest).publish([sentKey(1, daysAgo: 2)], token: token)
        #expect(mismatch.status == 400)
        #expect(mismatch.response.code == .invalidRevisionToken)
        #expect(try await server.stored(1)?.revision == nil)
        #expect(try await elsewhere.stored(1)?.revision == nil)
    }

    @Test func partialRevisionsSkipKeysMissingFromTheToken() async throws {
        let server = try Server()
        #expect(try await server.app(.confirmedClinicalDiagnosis).publish([sentKey(1)]).status == 200)
        let other = try await server.app(.confirmedClinicalDiagnosis).publish([sentKey(9, daysAgo: 3)])
        let partial = try server.app(.confirmedTest) { $0.allowsPartialRevisions = true }
        let reply = await partial.publish([sentKey(1), sentKey(2, daysAgo: 2)], token: other.response.revisionToken)
        #expect(reply.status == 200)
        #expect(reply.response.insertedExposures == 1)
        #expect(try await server.stored(1)?.revision == nil)
    }

    @Test func appsThatBypassTheTokenReviseWithoutOne() async throws {
        let server = try Server()
        #expect(try await server.app(.confirmedClinicalDiagnosis).publish([sentKey(1)]).status == 200)
        let reply = try await server.app(.confirmedTest, bypassesRevisionToken: true).publish([sentKey(1)])
        #expect(reply.status == 200)
        #expect(try await server.stored(1)?.revision?.reportType == .confirmedTest)
    }

    @Test func rotatedTokenKeysStillOpenOlderTokens() async throws {
        let old = try ENRevisionTokenKeys.generate()
        let server = try Server(tokenKeys: old)
        let token = try await server.app(.confirmedClinicalDiagnosis).publish([sentKey(1)]).response.revisionToken
        var rotated = old
        rotated.keys[2] = try AESGCM.Key.generate()
        rotated.currentKeyID = 2
        let after = try PublishTest(
            clock: server.clock, verifier: FixedVerifier(claims: ENVerifiedClaims(reportType: .confirmedTest)),
            tokenKeys: rotated, store: server.store)
        let reply = await after.publish([sentKey(1)], token: token)
        #expect(reply.status == 200)
        // Once the old key is dropped, its tokens no longer open.
        rotated.keys[1] = nil
        let dropped = try PublishTest(
            clock: server.clock, verifier: FixedVerifier(claims: ENVerifiedClaims(reportType: .revoked)),
            tokenKeys: rotated, store: server.store)
        #expect(await dropped.publish([sentKey(1)], token: token).response.code == .invalidRevisionToken)
        #expect(
            await dropped.publish([sentKey(1)], token: reply.response.revisionToken).response.code == .keyAlreadyRevised
        )
    }

    @Test(.enabled(if: ExternalTool.protoc.isAvailable))
    func tokensAreGooglesProtobufPaddedTo28Entries() async throws {
        let server = try Server()
        let reply = try await server.app(.confirmedTest).publish([sentKey(1), sentKey(2, daysAgo: 2)])
        let envelope = try #require(Data(base64Encoded: reply.response.revisionToken))
        let outer = try ExternalTool.protoc.run(["--decode_raw"], stdin: envelope)
        #expect(outer.status == 0)
        #expect(outer.output.hasPrefix("1: \"1\"\n2: \""))
        // RevisionToken { kid = "1" (field 1), data (field 2) }: data follows its tag and varint length.
        #expect(Array(envelope.prefix(4)) == [0x0A, 0x01, 0x31, 0x12])
        var offset = 4
        var length = 0
        var shift = 0
        while true {
            let byte = envelope[envelope.startIndex + offset]
            length |= Int(byte & 0x7F) << shift
            offset += 1
            shift += 7
            if byte < 0x80 { break }
        }
        #expect(envelope.count == offset + length)
        let sealed = envelope.suffix(length)
        let plaintext = try AESGCM.open(Data(sealed), using: try #require(server.tokenKeys.keys[1]))
        let inner = try ExternalTool.protoc.run(["--decode_raw"], stdin: plaintext)
        #expect(inner.status == 0)
        let entries = inner.output.components(separatedBy: "\n").filter { $0 == "1 {" }
        #expect(entries.count == 28)
        // The two keys (in request order), then 26 zero keys without intervals.
        #expect(inner.output.contains("  2: \(Int(today) - 144)\n  3: 144\n"))
        #expect(inner.output.contains("  2: \(Int(today) - 288)\n  3: 144\n"))
        #expect(inner.output.components(separatedBy: "\n").filter { $0.hasPrefix("  2: ") }.count == 2)
        // With the wrong additional data it does not open.
        #expect(throws: ENError.self) {
            try AESGCM.open(Data(sealed), using: server.tokenKeys.keys[1]!, authenticating: Data("x".utf8))
        }
    }
}
