import ENCore
import ENKeyServer
import ENKeyServerSQLite
import Foundation
import Testing

/// The publish rules of Google's `TransformPublish` and `process`: whole-request refusals, per-key drops,
/// embargo, days since onset, report types, and the other outcomes (reference §3).
@Suite("Publish rules")
struct PublishRulesTests {
    private let midnight = Date(enIntervalNumber: today)

    private func stored(_ test: PublishTest, _ n: Int) async throws -> ENStoredDiagnosisKey? {
        try await test.store.storedKeys(withKeyData: [keyData(n)]).first
    }

    @Test func storesValidKeysFromTheHourOfArrival() async throws {
        let test = try PublishTest()
        let reply = await test.publish([sentKey(1, daysAgo: 1, transmissionRisk: 3), sentKey(2, daysAgo: 15)])
        #expect(reply.status == 200)
        #expect(reply.response.code == nil)
        #expect(reply.response.error.isEmpty)
        #expect(reply.response.insertedExposures == 2)
        #expect(!reply.response.revisionToken.isEmpty)
        let first = try #require(try await stored(test, 1))
        // Without a certificate: no report type, the risk as sent, onset 4 days ago by default.
        #expect(
            first.key
                == ENTemporaryExposureKey(
                    keyData: keyData(1), rollingStartNumber: today.adding(-144), transmissionRiskLevel: 3,
                    diagnosisReportType: .unknown, daysSinceOnsetOfSymptoms: 3))
        #expect(first.exportableAt == midnight.addingTimeInterval(6 * 3600))
        #expect(first.revision == nil)
        #expect(try await stored(test, 2)?.key.daysSinceOnsetOfSymptoms == -11)
    }

    @Test func refusesUnknownHealthAuthoritiesAndMatchesIDsLowerCased() async throws {
        let test = try PublishTest()
        let unknown = await test.publish([sentKey(1)], id: "com.other.app")
        #expect(unknown.status == 401)
        #expect(unknown.response.code == .unknownHealthAuthorityID)
        #expect(try await test.storedKeys().isEmpty)
        #expect(await test.publish([sentKey(1)], id: "COM.Example.APP").status == 200)
    }

    @Test func refusesCertificatesThatDoNotVerifyUnlessTheAppBypassesVerification() async throws {
        let strict = try PublishTest(verifier: FixedVerifier(refuses: true))
        let refused = await strict.publish([sentKey(1)])
        #expect(refused.status == 401)
        #expect(refused.response.code == .verificationCertificateInvalid)
        #expect(try await strict.storedKeys().isEmpty)

        let lenient = try PublishTest(verifier: FixedVerifier(refuses: true), bypassesCertificateVerification: true)
        #expect(await lenient.publish([sentKey(1)]).status == 200)
        #expect(try await lenient.storedKeys().map(\.diagnosisReportType) == [.unknown])
    }

    @Test(arguments: [
        (ENDiagnosisReportType.confirmedTest, 2), (.confirmedClinicalDiagnosis, 4), (.selfReported, 0),
    ])
    func appliesTheCertificatesReportTypeAndBackfillsTheRisk(_ type: ENDiagnosisReportType, _ risk: Int) async throws {
        let test = try PublishTest(verifier: FixedVerifier(claims: ENVerifiedClaims(reportType: type)))
        #expect(await test.publish([sentKey(1), sentKey(2, daysAgo: 2, transmissionRisk: 7)]).status == 200)
        let keys = try await test.storedKeys().sorted { $0.rollingStartNumber < $1.rollingStartNumber }
        #expect(keys.map(\.diagnosisReportType) == [type, type])
        #expect(keys.map(\.transmissionRiskLevel) == [7, UInt8(risk)])
    }

    @Test func refusesRequestsWithoutKeysOrWithTooMany() async throws {
        let test = try PublishTest()
        let none = await test.publish([])
        #expect(none.status == 400)
        #expect(none.response.code == .badRequest)
        // 31 keys of one interval each, none overlapping.
        let many = (0..<31).map { n in
            ENPublishExposureKey(
                key: keyData(n).base64EncodedString(), rollingStartNumber: Int32(today) - 144 + Int32(n),
                rollingPeriod: 1)
        }
        let tooMany = await test.publish(many)
        #expect(tooMany.status == 400)
        #expect(tooMany.response.code == .badRequest)
        #expect(try await test.storedKeys().isEmpty)
        let thirty = await test.publish(Array(many.prefix(30)))
        #expect(thirty.status == 200)
        #expect(thirty.response.insertedExposures == 30)
    }

    @Test func refusesMoreThanThreeKeysWithOneStartAndOverlapsWithDifferentStarts() async throws {
        let test = try PublishTest()
        let four = (1...4).map { sentKey($0, daysAgo: 2, period: Int32(10 * $0)) }
        let refused = await test.publish(four)
        #expect(refused.status == 400)
        #expect(refused.response.code == .badRequest)
        var overlapping = sentKey(9, daysAgo: 2)
        overlapping.rollingStartNumber += 100
        let overlap = await test.publish([sentKey(1, daysAgo: 2), overlapping])
        #expect(overlap.status == 400)
        #expect(overlap.response.error.contains("non aligned overlapping intervals"))
        #expect(try await test.storedKeys().isEmpty)
        // Three keys with one start are fine, as are keys that touch.
        var touching = sentKey(9, daysAgo: 2)
        touching.rollingStartNumber += 144
        #expect(await test.publish(Array(four.prefix(3)) + [touching]).response.insertedExposures == 4)
    }

    @Test func dropsInvalidKeysWithPartialFailure() async throws {
        let test = try PublishTest()
        var badBase64 = sentKey(10)
        badBase64.key = "not base64!"
        var short = sentKey(11)
        short.key = Data(count: 15).base64EncodedString()
        var future = sentKey(12)
        future.rollingStartNumber = Int32(nowInterval) + 1
        let dropped = [
            badBase64, short, sentKey(13, period: 0), sentKey(14, period: 145), sentKey(15, daysAgo: 16), future,
            sentKey(16, daysAgo: 3, transmissionRisk: 9), sentKey(17, daysAgo: 4, transmissionRisk: -1),
        ]
        // URL-alphabet base64 without padding is a valid key too; the current interval is not the future.
        var url = sentKey(2, daysAgo: 5)
        url.key = keyData(2).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        var current = sentKey(3, daysAgo: 0, period: 1)
        current.rollingStartNumber = Int32(nowInterval)
        let reply = await test.publish([sentKey(1, daysAgo: 15)] + dropped + [url, current])
        #expect(reply.status == 200)
        #expect(reply.response.code == .partialFailure)
        #expect(reply.response.insertedExposures == 3)
        #expect(!reply.response.revisionToken.isEmpty)
        #expect(reply.response.error.hasPrefix("8 errors occurred:"))
        for index in 1...8 { #expect(reply.response.error.contains("key \(index) cannot be imported")) }
        #expect(Set(try await test.storedKeys().map(\.keyData)) == [keyData(1), keyData(2), keyData(3)])
    }

    @Test func refusesTheRequestWhenEveryKeyIsInvalid() async throws {
        let test = try PublishTest()
        let reply = await test.publish([sentKey(1, period: 0), sentKey(2, daysAgo: 20)])
        #expect(reply.status == 400)
        #expect(reply.response.code == .badRequest)
        #expect(reply.response.error.hasPrefix("unable to read request data: 2 errors occurred:"))
        #expect(reply.response.revisionToken.isEmpty)
        #expect(try await test.storedKeys().isEmpty)
    }

    @Test func checksOverlapsAmongValidKeysOnly() async throws {
        let test = try PublishTest()
        var invalidOverlap = sentKey(2, daysAgo: 1, transmissionRisk: 9)
        invalidOverlap.rollingStartNumber += 10
        let reply = await test.publish([sentKey(1, daysAgo: 1), invalidOverlap])
        #expect(reply.status == 200)
        #expect(reply.response.code == .partialFailure)
    }

    @Test func embargoesStillValidKeysUntilTheHourAfterTheirEnd() async throws {
        let test = try PublishTest()
        let whole = sentKey(1, daysAgo: 0, period: 144)  // valid until midnight
        let ended = sentKey(2, daysAgo: 0, period: 30)  // ended at 05:00, before now (06:13)
        var running = sentKey(3, daysAgo: 0, period: 38)  // ends at 06:20
        running.rollingStartNumber = Int32(today)
        #expect(await test.publish([whole, ended, running]).response.insertedExposures == 3)
        #expect(try await stored(test, 1)?.exportableAt == midnight.addingTimeInterval(86_400 + 3600))
        #expect(try await stored(test, 2)?.exportableAt == midnight.addingTimeInterval(6 * 3600))
        #expect(try await stored(test, 3)?.exportableAt == midnight.addingTimeInterval(7 * 3600))

        let debug = try PublishTest { $0.releasesStillValidKeys = true }
        #expect(await debug.publish([whole]).status == 200)
        #expect(try await stored(debug, 1)?.exportableAt == midnight.addingTimeInterval(6 * 3600))
    }

    @Test func takesTheSymptomOnsetFromTheRequestThenTheCertificateElseFourDaysAgo() async throws {
        let twoDaysAgo = Int32(today) - 288 + 50
        let request = try PublishTest()
        #expect(await request.publish([sentKey(1, daysAgo: 0)], onset: twoDaysAgo).status == 200)
        #expect(try await stored(request, 1)?.key.daysSinceOnsetOfSymptoms == 2)

        // Too old (before midnight 28 days ago) or in the future: the certificate's, else 4 days ago.
        let certificate = try PublishTest(
            verifier: FixedVerifier(
                claims: ENVerifiedClaims(reportType: .confirmedTest, symptomOnsetInterval: UInt32(today) - 144)))
        #expect(await certificate.publish([sentKey(1, daysAgo: 0)], onset: Int32(today) - 29 * 144).status == 200)
        #expect(try await stored(certificate, 1)?.key.daysSinceOnsetOfSymptoms == 1)
        let fallback = try PublishTest()
        #expect(await fallback.publish([sentKey(1, daysAgo: 0)], onset: Int32(nowInterval) + 1).status == 200)
        #expect(try await stored(fallback, 1)?.key.daysSinceOnsetOfSymptoms == 4)
        // Midnight 28 days ago is still accepted.
        let edge = try PublishTest()
        #expect(await edge.publish([sentKey(1, daysAgo: 15)], onset: Int32(today) - 28 * 144).status == 200)
        #expect(try await stored(edge, 1)?.key.daysSinceOnsetOfSymptoms == 13)
    }

    @Test func dropsKeysTooFarFromTheOnsetWithAWarning() async throws {
        let test = try PublishTest()
        // Onset today: a key 15 days old is 15 days from it (> 14) and is dropped, not failing the request.
        let reply = await test.publish([sentKey(1, daysAgo: 15), sentKey(2, daysAgo: 14)], onset: Int32(today))
        #expect(reply.status == 200)
        #expect(reply.response.code == nil)
        #expect(reply.response.warnings == ["key 0 symptom onset is too large, 15 > 14 - saving without this key"])
        #expect(try await test.storedKeys().map(\.keyData) == [keyData(2)])

        // Every key dropped so: 200 with the warnings, nothing stored, no token (Google's code does the same).
        let none = try PublishTest()
        let empty = await none.publish([sentKey(1, daysAgo: 15)], onset: Int32(today))
        #expect(empty.status == 200)
        #expect(empty.response.warnings.count == 1)
        #expect(empty.response.revisionToken.isEmpty)
        #expect(empty.response.insertedExposures == 0)
        #expect(try await none.storedKeys().isEmpty)
    }

    @Test func storesAKeySentTwiceOnce() async throws {
        let test = try PublishTest()
        let reply = await test.publish([sentKey(1), sentKey(1)])
        #expect(reply.status == 200)
        #expect(reply.response.insertedExposures == 1)
        #expect(try await test.storedKeys().map(\.keyData) == [keyData(1)])
        // Key data identifies a key, whatever its start: the same data under another start is not a new key.
        let other = try PublishTest(bypassesRevisionToken: true)
        #expect(await other.publish([sentKey(1, daysAgo: 1)]).response.insertedExposures == 1)
        #expect(await other.publish([sentKey(1, daysAgo: 2)]).status == 200)
        #expect(try await other.storedKeys().count == 1)
    }

    @Test func doesNotStoreNegativeKeysNeverPublished() async throws {
        let test = try PublishTest(verifier: FixedVerifier(claims: ENVerifiedClaims(reportType: .revoked)))
        let reply = await test.publish([sentKey(1), sentKey(2, daysAgo: 2)])
        #expect(reply.status == 200)
        #expect(reply.response.insertedExposures == 0)
        #expect(!reply.response.revisionToken.isEmpty)
        #expect(try await test.storedKeys().isEmpty)
    }

    @Test func limitsAreConfigurable() async throws {
        let test = try PublishTest {
            $0.maximumKeys = 1
            $0.maximumKeyAge = 2 * 86_400
        }
        #expect(await test.publish([sentKey(1), sentKey(2, daysAgo: 2)]).status == 400)
        let reply = await test.publish([sentKey(3, daysAgo: 4)])
        #expect(reply.status == 400)
        #expect(reply.response.error.contains("too old"))
    }
}
