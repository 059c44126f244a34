import ENCore
import ENCrypto
import ENKeyServer
import ENVerificationServer
import Foundation
import Testing

/// The whole exchange in process, through the raw-body entry point an HTTP layer uses: issue → verify →
/// certificate → the key server's `ENVerificationCertificateVerifier`, and each refusal with Google's status and
/// code.
@Suite("Verification flow")
struct VerificationFlowTests {
    @Test(
        "A code becomes a token, the token a certificate the key server accepts with its HMAC check",
        arguments: VerificationStorageKind.available)
    func fullFlow(kind: VerificationStorageKind) async throws {
        try await kind.with { stores in
            let fixture = try await VerificationFixture(storage: stores[0])
            let issued = await fixture.post(
                .issue, #"{"testType":"confirmed","symptomDate":"2020-07-30","testDate":"2020-07-31"}"#)
            #expect(issued.status == 200)
            let code = try #require(issued.json["code"] as? String)
            #expect(code.count == 8 && code.allSatisfy(\.isNumber))
            #expect((issued.json["longCode"] as? String)?.count == 16)
            #expect(issued.json["expiresAtTimestamp"] as? Int == 1_596_283_200 + 900)
            #expect(issued.json["expiresAt"] as? String == "Sat, 01 Aug 2020 12:15:00 UTC")
            #expect(issued.json["longExpiresAtTimestamp"] as? Int == 1_596_283_200 + 86_400)

            let verified = await fixture.post(.verify, #"{"code":"\#(code)","accept":["confirmed"]}"#)
            #expect(verified.status == 200)
            #expect(verified.json["testtype"] as? String == "confirmed")
            #expect(verified.json["symptomDate"] as? String == "2020-07-30")
            #expect(verified.json["testDate"] as? String == "2020-07-31")
            let token = try #require(verified.json["token"] as? String)

            let keys = PublishedKeys()
            let certified = await fixture.post(.certificate, #"{"token":"\#(token)","ekeyhmac":"\#(keys.hmac)"}"#)
            #expect(certified.status == 200, "\(certified.text)")
            let certificate = try #require(certified.json["certificate"] as? String)

            // The key server accepts it a few seconds later, with its own HMAC check of the keys.
            let claims = try await fixture.keyServerVerifier.verify(
                keys.request(certificate: certificate), at: fixture.clock.now.addingTimeInterval(2))
            #expect(claims?.reportType == .confirmedTest)
            let july30 = UInt32(ENVerificationDate("2020-07-30")!.daysSinceEpoch * 144)
            #expect(claims?.symptomOnsetInterval == july30)

            // Other keys do not match the certificate's tekmac.
            var other = keys.request(certificate: certificate)
            other.temporaryExposureKeys.removeLast()
            await #expect(throws: ENError.self) {
                _ = try await fixture.keyServerVerifier.verify(other, at: fixture.clock.now.addingTimeInterval(2))
            }

            // A second use of the code or of the token is refused with Google's codes.
            let again = await fixture.post(.verify, #"{"code":"\#(code)"}"#)
            #expect(again.status == 400)
            #expect(again.json["errorCode"] as? String == "code_invalid")
            #expect(again.json["error_code"] as? String == "code_invalid")
            let twice = await fixture.post(.certificate, #"{"token":"\#(token)","ekeyhmac":"\#(keys.hmac)"}"#)
            #expect(twice.status == 400)
            #expect(twice.json["errorCode"] as? String == "token_expired")
            #expect(twice.json["error"] as? String == "verification token invalid")
        }
    }

    @Test(
        "Every test type reaches the key server as its report type",
        arguments: [
            ("confirmed", ENDiagnosisReportType.confirmedTest), ("likely", .confirmedClinicalDiagnosis),
            ("negative", .revoked), ("user-report", .selfReported),
        ] as [(String, ENDiagnosisReportType)])
    func reportTypes(testType: String, reportType: ENDiagnosisReportType) async throws {
        var configuration = ENVerificationConfiguration()
        configuration.allowedTestTypes = Set(ENVerificationTestType.allCases)
        let fixture = try await VerificationFixture(configuration: configuration)
        let issued = await fixture.post(.issue, #"{"testType":"\#(testType)","testDate":"2020-07-31"}"#)
        let code = try #require(issued.json["code"] as? String, "\(issued.text)")
        let token = try #require(await fixture.post(.verify, #"{"code":"\#(code)"}"#).json["token"] as? String)
        let keys = PublishedKeys()
        let certificate = try #require(
            await fixture.post(.certificate, #"{"token":"\#(token)","ekeyhmac":"\#(keys.hmac)"}"#).json["certificate"]
                as? String)
        let claims = try await fixture.keyServerVerifier.verify(
            keys.request(certificate: certificate), at: fixture.clock.now)
        #expect(claims == ENVerifiedClaims(reportType: reportType, symptomOnsetInterval: 0))
    }

    @Test("The certificate's header and claims are Google's, in Google's order")
    func certificateShape() async throws {
        let fixture = try await VerificationFixture()
        let code = try #require(
            await fixture.issue(#"{"testType":"likely","testDate":"2020-07-31"}"#)["code"] as? String)
        let token = try #require(
            await fixture.post(.verify, #"{"code":"\#(code)","accept":["likely"]}"#).json["token"] as? String)
        let tokenParts = token.split(separator: ".")
        #expect(Self.segment(tokenParts[0]) == #"{"alg":"ES256","kid":"v1","typ":"JWT"}"#)
        let tokenClaims = try #require(Self.segment(tokenParts[1]))
        #expect(tokenClaims.hasPrefix(#"{"aud":"diagnosis-verification-example","exp":1596369600,"jti":""#))
        #expect(
            tokenClaims.hasSuffix(
                #"","iat":1596283200,"iss":"diagnosis-verification-example","sub":"likely..2020-07-31"}"#))

        let hmac = PublishedKeys().hmac
        let certificate = try #require(
            await fixture.post(.certificate, #"{"token":"\#(token)","ekeyhmac":"\#(hmac)"}"#).json["certificate"]
                as? String)
        let parts = certificate.split(separator: ".")
        #expect(Self.segment(parts[0]) == #"{"alg":"ES256","kid":"v1","typ":"JWT"}"#)
        // No symptom date: no symptomOnsetInterval; the test date never goes into the certificate.
        #expect(
            Self.segment(parts[1])
                == #"{"aud":"exposure-notifications-server","exp":1596284100,"iat":1596283195,"#
                + #""iss":"diagnosis-verification-example","nbf":1596283195,"reportType":"likely","tekmac":""#
                + hmac + #""}"#)
        #expect(Data(base64URL: parts[2])?.count == 64)
    }

    @Test("An expired short code is refused with code_expired; the long code lives on")
    func expiry() async throws {
        let fixture = try await VerificationFixture()
        let issued = await fixture.issue()
        let code = try #require(issued["code"] as? String)
        let longCode = try #require(issued["longCode"] as? String)
        fixture.clock.advance(by: 15 * 60)
        let expired = await fixture.post(.verify, #"{"code":"\#(code)"}"#)
        #expect(expired.status == 400)
        #expect(expired.json["errorCode"] as? String == "code_expired")
        let long = await fixture.post(.verify, #"{"code":"\#(longCode)"}"#)
        #expect(long.status == 200)
        // Claimed through the long code: the short one is now used (expiry is checked first, as Google's).
        fixture.clock.advance(by: 24 * 3600)
        #expect(await fixture.post(.verify, #"{"code":"\#(longCode)"}"#).json["errorCode"] as? String == "code_expired")
    }

    @Test("A type outside the accept list is 412 unsupported_test_type, and the code stays usable")
    func acceptList() async throws {
        let fixture = try await VerificationFixture()
        let code = try #require(
            await fixture.issue(#"{"testType":"negative","testDate":"2020-07-31"}"#)["code"] as? String)
        let refused = await fixture.post(.verify, #"{"code":"\#(code)","accept":["likely","user-report"]}"#)
        #expect(refused.status == 412)
        #expect(refused.json["errorCode"] as? String == "unsupported_test_type")
        let unknown = await fixture.post(.verify, #"{"code":"\#(code)","accept":["positive"]}"#)
        #expect(unknown.status == 400)
        #expect(unknown.json["errorCode"] as? String == "invalid_test_type")
        #expect(unknown.json["error"] as? String == "invalid accepted test type: positive")
        let accepted = await fixture.post(.verify, #"{"code":"\#(code)","accept":["NEGATIVE"]}"#)
        #expect(accepted.status == 200)
        #expect(accepted.json["testtype"] as? String == "negative")
    }

    @Test("A bad ekeyhmac is hmac_invalid and leaves the token usable; a bad token is token_invalid")
    func badHMACAndToken() async throws {
        let fixture = try await VerificationFixture()
        let code = try #require(await fixture.issue()["code"] as? String)
        let token = try #require(await fixture.post(.verify, #"{"code":"\#(code)"}"#).json["token"] as? String)
        let short = await fixture.post(.certificate, #"{"token":"\#(token)","ekeyhmac":"AAAA"}"#)
        #expect(short.status == 400)
        #expect(short.json["errorCode"] as? String == "hmac_invalid")
        #expect(short.json["error"] as? String == "exposure key HMAC is not the correct length, want: 32 got: 3")
        let notBase64 = await fixture.post(.certificate, #"{"token":"\#(token)","ekeyhmac":"!!!"}"#)
        #expect(notBase64.json["errorCode"] as? String == "hmac_invalid")

        var tampered = Array(token)
        let index = tampered.index(tampered.startIndex, offsetBy: tampered.count - 5)
        tampered[index] = tampered[index] == "A" ? "B" : "A"
        let bad = await fixture.post(
            .certificate, #"{"token":"\#(String(tampered))","ekeyhmac":"\#(PublishedKeys().hmac)"}"#)
        #expect(bad.status == 400)
        #expect(bad.json["errorCode"] as? String == "token_invalid")
        let garbage = await fixture.post(.certificate, #"{"token":"x.y","ekeyhmac":"\#(PublishedKeys().hmac)"}"#)
        #expect(garbage.json["errorCode"] as? String == "token_invalid")
        let unknownField = await fixture.post(.certificate, #"{"token":"\#(token)","other":1}"#)
        #expect(unknownField.status == 400)
        #expect(unknownField.json["errorCode"] as? String == "token_invalid")

        // The token was never claimed by those: it still gives a certificate.
        let good = await fixture.post(.certificate, #"{"token":"\#(token)","ekeyhmac":"\#(PublishedKeys().hmac)"}"#)
        #expect(good.status == 200)
    }

    @Test("An expired token is token_invalid (the JWT's exp), as Google's")
    func expiredToken() async throws {
        let fixture = try await VerificationFixture()
        let code = try #require(await fixture.issue()["code"] as? String)
        let token = try #require(await fixture.post(.verify, #"{"code":"\#(code)"}"#).json["token"] as? String)
        fixture.clock.advance(by: 24 * 3600 + 1)
        let late = await fixture.post(.certificate, #"{"token":"\#(token)","ekeyhmac":"\#(PublishedKeys().hmac)"}"#)
        #expect(late.status == 400)
        #expect(late.json["errorCode"] as? String == "token_invalid")
        #expect(late.json["error"] as? String == "verification token expired")
    }

    @Test("Dates: missing, unparsable, too old, in the future; a negative tzOffset loosens the lower bound")
    func dates() async throws {
        let fixture = try await VerificationFixture()
        let missing = await fixture.post(.issue, #"{"testType":"confirmed"}"#)
        #expect(missing.status == 400)
        #expect(missing.json["errorCode"] as? String == "missing_date")
        let unparsable = await fixture.post(.issue, #"{"testType":"confirmed","symptomDate":"2020-02-30"}"#)
        #expect(unparsable.json["errorCode"] as? String == "unparsable_request")
        let future = await fixture.post(.issue, #"{"testType":"confirmed","testDate":"2020-08-02"}"#)
        #expect(future.status == 400)
        #expect(future.json["errorCode"] as? String == "invalid_date")
        #expect(
            future.json["error"] as? String
                == "test date must be on/after 2020-07-04 and on/before 2020-08-01. Received 2020-08-02")
        let old = await fixture.post(.issue, #"{"testType":"confirmed","symptomDate":"2020-07-03"}"#)
        #expect(old.json["errorCode"] as? String == "invalid_date")
        let west = await fixture.post(.issue, #"{"testType":"confirmed","symptomDate":"2020-07-03","tzOffset":-60}"#)
        #expect(west.status == 200)
        let oldest = await fixture.post(.issue, #"{"testType":"confirmed","symptomDate":"2020-07-04"}"#)
        #expect(oldest.status == 200)
    }

    @Test("Issue refusals: test types, UUIDs, SMS options")
    func issueRefusals() async throws {
        let fixture = try await VerificationFixture()
        let invalid = await fixture.post(.issue, #"{"testType":"positive","testDate":"2020-07-31"}"#)
        #expect(invalid.status == 400)
        #expect(invalid.json["errorCode"] as? String == "invalid_test_type")
        let report = await fixture.post(.issue, #"{"testType":"user-report","testDate":"2020-07-31"}"#)
        #expect(report.status == 400)
        #expect(report.json["errorCode"] as? String == "unsupported_test_type")
        let uuid = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
        let first = await fixture.post(.issue, #"{"testType":"Likely","testDate":"2020-07-31","uuid":"\#(uuid)"}"#)
        #expect(first.status == 200)
        #expect(first.json["uuid"] as? String == uuid.lowercased())
        let again = await fixture.post(.issue, #"{"testType":"likely","testDate":"2020-07-31","uuid":"\#(uuid)"}"#)
        #expect(again.status == 409)
        #expect(again.json["errorCode"] as? String == "uuid_already_exists")
        let sms = await fixture.post(.issue, #"{"testType":"likely","testDate":"2020-07-31","phone":"+15555550100"}"#)
        #expect(sms.status == 400)
        #expect(sms.json["errorCode"] as? String == "")
    }

    @Test("API keys: missing, unknown, tampered or of the wrong type get 401")
    func apiKeys() async throws {
        let fixture = try await VerificationFixture()
        let body = #"{"testType":"confirmed","testDate":"2020-07-31"}"#
        let device = await fixture.post(.issue, body, key: fixture.deviceKey)
        #expect(device.status == 401)
        #expect(device.text == #"{"error":"unauthorized","errorCode":"","error_code":""}"# + "\n")
        #expect(await fixture.post(.verify, #"{"code":"1"}"#, key: fixture.adminKey).status == 401)
        #expect(await fixture.post(.issue, body, key: "").status == 401)
        // One character of the signature changed (not the last, whose low bits base64 ignores, as Go does).
        var tampered = Array(fixture.adminKey)
        let index = tampered.count - 10
        tampered[index] = tampered[index] == "A" ? "B" : "A"
        #expect(await fixture.post(.issue, body, key: String(tampered)).status == 401)
        #expect(await fixture.post(.issue, body, key: " \(fixture.adminKey) ").status == 200)
    }

    @Test("Chaff: after the key check, 200 with only padding, and nothing processed")
    func chaff() async throws {
        let fixture = try await VerificationFixture()
        let code = try #require(await fixture.issue()["code"] as? String)
        let chaff = await fixture.post(.verify, #"{"code":"\#(code)"}"#, chaff: true)
        #expect(chaff.status == 200)
        #expect(Array(chaff.json.keys) == ["padding"])
        #expect(await fixture.post(.verify, #"{"code":"\#(code)"}"#, key: "nope", chaff: true).status == 401)
        #expect(await fixture.post(.verify, #"{"code":"\#(code)"}"#).status == 200)
    }

    @Test(
        "Cleanup as Google's: codes forgotten after 48 hours, entries deleted after 14 days, tokens after 24 hours",
        arguments: VerificationStorageKind.available)
    func cleanup(kind: VerificationStorageKind) async throws {
        try await kind.with { stores in
            let fixture = try await VerificationFixture(storage: stores[0])
            let first = await fixture.issue()
            let second = await fixture.issue()
            let code = try #require(first["code"] as? String)
            let longCode = try #require(second["longCode"] as? String)
            #expect(await fixture.post(.verify, #"{"code":"\#(code)"}"#).status == 200)
            #expect(
                try await fixture.service.deleteExpired()
                    == ENVerificationCleanup(recycledCodes: 0, deletedCodes: 0, deletedTokens: 0))

            // Both codes' long expiry (24 h) plus 48 h; the token expired 24 h after issue, so it is deleted too.
            fixture.clock.advance(by: 72 * 3600 + 1)
            #expect(
                try await fixture.service.deleteExpired()
                    == ENVerificationCleanup(recycledCodes: 2, deletedCodes: 0, deletedTokens: 1))
            let status = await fixture.post(.checkCodeStatus, #"{"uuid":"\#(second["uuid"] as? String ?? "")"}"#)
            #expect(status.status == 200)
            #expect(
                await fixture.post(.verify, #"{"code":"\#(longCode)"}"#).json["errorCode"] as? String == "code_invalid")

            fixture.clock.advance(by: 14 * 86_400)
            #expect(
                try await fixture.service.deleteExpired()
                    == ENVerificationCleanup(recycledCodes: 0, deletedCodes: 2, deletedTokens: 0))
            #expect(
                await fixture.post(.checkCodeStatus, #"{"uuid":"\#(second["uuid"] as? String ?? "")"}"#).status == 404)
        }
    }

    @Test("Check status, expire, batch issue", arguments: VerificationStorageKind.available)
    func codeAdministration(kind: VerificationStorageKind) async throws {
        try await kind.with { stores in
            let fixture = try await VerificationFixture(storage: stores[0])
            let issued = await fixture.issue()
            let uuid = try #require(issued["uuid"] as? String)
            let status = await fixture.post(.checkCodeStatus, #"{"uuid":"\#(uuid)"}"#)
            #expect(status.status == 200)
            #expect(status.json["claimed"] as? Bool == false)
            #expect(status.json["expiresAtTimestamp"] as? Int == 1_596_284_100)
            let missing = await fixture.post(.checkCodeStatus, #"{"uuid":"\#(UUID().uuidString)"}"#)
            #expect(missing.status == 404)
            #expect(missing.json["errorCode"] as? String == "code_not_found")

            fixture.clock.advance(by: 60)
            let expired = await fixture.post(.expireCode, #"{"uuid":"\#(uuid)"}"#)
            #expect(expired.status == 200)
            #expect(expired.json["expiresAtTimestamp"] as? Int == 1_596_283_260)
            #expect(expired.json["claimed"] == nil)
            let code = try #require(issued["code"] as? String)
            #expect(await fixture.post(.verify, #"{"code":"\#(code)"}"#).json["errorCode"] as? String == "code_expired")

            let other = await fixture.issue()
            _ = await fixture.post(.verify, #"{"code":"\#(other["code"] as? String ?? "")"}"#)
            let claimed = await fixture.post(.expireCode, #"{"uuid":"\#(other["uuid"] as? String ?? "")"}"#)
            #expect(claimed.status == 400)
            #expect(claimed.text == #"{"error":"bad request","errorCode":"","error_code":""}"# + "\n")

            let batch = await fixture.post(
                .batchIssue,
                #"{"codes":[{"testType":"confirmed","testDate":"2020-07-31"},{"testType":"confirmed"},{"testType":"likely","testDate":"2020-07-30"}]}"#
            )
            #expect(batch.status == 400)
            #expect(batch.json["errorCode"] as? String == "missing_date")
            #expect(
                batch.json["error"] as? String
                    == "Failed to issue 1 codes. Issued 2 codes successfully.See each error status in the codes array.")
            let entries = try #require(batch.json["codes"] as? [[String: Any]])
            #expect(entries.count == 3)
            #expect(entries[0]["padding"] as? String == "")
            #expect((entries[0]["code"] as? String)?.count == 8)
            #expect(entries[1]["errorCode"] as? String == "missing_date")
            let tooMany = Array(repeating: #"{"testType":"confirmed","testDate":"2020-07-31"}"#, count: 11)
            let big = await fixture.post(.batchIssue, #"{"codes":[\#(tooMany.joined(separator: ","))]}"#)
            #expect(big.status == 400)
            #expect(big.json["error"] as? String == "batch size limit [10] exceeded")
        }
    }
}

extension VerificationFlowTests {
    static func segment(_ text: Substring) -> String? {
        Data(base64URL: text).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension Data {
    init?(base64URL text: some StringProtocol) {
        var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        normalized += String(repeating: "=", count: (4 - normalized.count % 4) % 4)
        self.init(base64Encoded: normalized)
    }
}

/// The app's side, against the service in process.
@Suite("Verification client")
struct VerificationClientTests {
    @Test("verify, certificate, and the key server accepts the publish request the client's answer fills in")
    func clientFlow() async throws {
        let fixture = try await VerificationFixture()
        let code = try #require(await fixture.issue()["code"] as? String)
        let client = ENVerificationClient(apiKey: fixture.deviceKey, transport: fixture.service)
        let verified = try await client.verify(code: code, accept: [.confirmed])
        #expect(verified.testType == "confirmed")
        let keys = PublishedKeys().keys
        let certified = try await client.certificate(token: verified.token, keys: keys)
        let request = ENPublishRequest(
            temporaryExposureKeys: keys.reversed(), healthAuthorityID: "test",
            verificationPayload: certified.certificate,
            hmacKey: certified.hmacKey)
        let claims = try await fixture.keyServerVerifier.verify(request, at: fixture.clock.now)
        #expect(claims?.reportType == .confirmedTest)
        #expect(
            ENVerificationClient.exposureKeyHMAC(of: keys, key: PublishedKeys().secret).base64EncodedString()
                == PublishedKeys().hmac)

        await #expect(
            throws: ENVerificationAPIError(status: 400, message: "verification code invalid", code: .codeInvalid)
        ) {
            _ = try await client.verify(code: code)
        }
        await #expect(
            throws: ENVerificationAPIError(status: 400, message: "verification token invalid", code: .tokenExpired)
        ) {
            _ = try await client.certificate(token: verified.token, keys: keys)
        }
        let stranger = ENVerificationClient(apiKey: "not.a.key", transport: fixture.service)
        await #expect(throws: ENVerificationAPIError.unauthorized) { _ = try await stranger.verify(code: code) }
        try await client.sendChaff(to: .verify)
        try await client.sendChaff(to: .certificate)
    }
}
