import ENCore
import ENCrypto
import ENVerificationServer
import Foundation
import Testing

/// The rules behind the handlers, each against Google's own test tables where it has one.
@Suite("Verification rules")
struct VerificationRulesTests {
    @Test(
        "accept lists, Google's util_test.go table",
        arguments: [
            ([], ["confirmed", "likely", "negative", "user-report"]),
            (["CONFIRMED", "Likely", "negative", "user-report"], ["confirmed", "likely", "negative", "user-report"]),
            (["confirmed"], ["confirmed"]),
            (["confirmed", "likely"], ["confirmed", "likely"]),
            (["likely"], ["confirmed", "likely"]),
            (["negative"], ["confirmed", "likely", "negative"]),
            (["negative", "user-report"], ["confirmed", "likely", "negative", "user-report"]),
            (["user-report"], ["confirmed", "user-report"]),
        ] as [([String], [String])])
    func acceptLists(input: [String], expected: [String]) throws {
        let accepted = try ENVerificationAcceptedTypes(accept: input)
        #expect(Set(accepted.types.map(\.rawValue)) == Set(expected))
    }

    @Test("An unknown accepted type is invalid_test_type, lower-cased in the message")
    func invalidAccept() {
        #expect(
            throws: ENVerificationAPIError(
                status: 400, message: "invalid accepted test type: self-reported", code: .invalidTestType)
        ) {
            try ENVerificationAcceptedTypes(accept: ["SELF-REPORTED"])
        }
    }

    @Test(
        "Dates, Google's parse_date_test.go table (maximum 2020-08-01, minimum one day before)",
        arguments: [
            ("2020-08-01", 0, true), ("2020-08-01", 60, true), ("2020-08-01", 720, true), ("2020-07-31", 60, true),
            ("2020-08-01", -60, true), ("2020-07-31", -60, true), ("2020-07-30", -60, true),
            ("2020-07-29", -60, false), ("2020-07-30", 0, false), ("2020-08-02", 720, false),
        ] as [(String, Int, Bool)])
    func dates(text: String, tzOffset: Int, valid: Bool) {
        let rule = ENVerificationDateRule(maximumAge: 86_400)
        let now = Date(timeIntervalSince1970: 1_596_283_200)  // 2020-08-01 12:00 UTC
        let result = Result { () throws(ENVerificationAPIError) in
            try rule.check(text, name: "test", tzOffset: tzOffset, now: now)
        }
        switch result {
        case .success(let date): #expect(valid && date?.description == text)
        case .failure(let error): #expect(!valid && error.code == .invalidDate)
        }
    }

    @Test("Dates parse as Go's 2006-01-02 layout")
    func dateParsing() {
        #expect(ENVerificationDate("2020-02-29")?.description == "2020-02-29")
        #expect(ENVerificationDate("2021-02-29") == nil)
        #expect(ENVerificationDate("2020-13-01") == nil)
        #expect(ENVerificationDate("2020-1-01") == nil)
        #expect(ENVerificationDate("2020-01-01T00:00:00Z") == nil)
        #expect(ENVerificationDate("1970-01-02")?.intervalNumber == 144)
        #expect(ENVerificationDate("2020-08-01")?.daysSinceEpoch == 18_475)
    }

    @Test("Subjects round-trip as Google's ParseSubject reads them")
    func subjects() {
        let subject = ENVerificationSubject(testType: .likely, testDate: ENVerificationDate("2020-07-31"))
        #expect(subject.description == "likely..2020-07-31")
        #expect(ENVerificationSubject(parsing: subject.description) == subject)
        #expect(
            ENVerificationSubject(parsing: "confirmed.2020-07-30")
                == ENVerificationSubject(testType: .confirmed, symptomDate: ENVerificationDate("2020-07-30")))
        #expect(ENVerificationSubject(parsing: "confirmed") == nil)
        #expect(ENVerificationSubject(parsing: "confirmed.x.") == nil)
    }

    @Test("Codes: digits and Google's alphabet, at the configured length")
    func codes() {
        for length in [6, 8, 18] {
            let code = ENVerificationCodeGenerator.shortCode(length: length)
            #expect(code.count == length && code.allSatisfy { $0.isASCII && $0.isNumber })
        }
        let long = (0..<50).map { _ in ENVerificationCodeGenerator.longCode(length: 16) }
        #expect(long.allSatisfy { $0.count == 16 && $0.allSatisfy(ENVerificationCodeGenerator.alphabet.contains) })
        #expect(Set(long).count == 50)
    }

    @Test("HMAC-SHA512 is RFC 4231's test case 2")
    func hmacSHA512() {
        let mac = HMAC.sha512AuthenticationCode(
            for: Data("what do ya want for nothing?".utf8), using: Data("Jefe".utf8))
        #expect(
            mac.map { String(format: "%02x", $0) }.joined()
                == "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
                + "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")
    }

    @Test("API keys: Google's three-part form, checked by signature, stored only as an HMAC")
    func apiKeys() throws {
        let secrets = try ENVerificationSecrets(masterKey: Data(repeating: 1, count: 32))
        let (key, record) = try ENVerificationAPIKey.create(name: " lab ", type: .admin, secrets: secrets, now: Date())
        let parts = key.split(separator: ".")
        #expect(parts.count == 3 && parts[0].count == 86 && parts[1] == "1" && parts[2].count == 86)
        #expect(record.name == "lab")
        #expect(!record.keyHMAC.contains(String(parts[0])))
        #expect(ENVerificationAPIKey.lookupHMACs(of: key, secrets: secrets) == [record.keyHMAC])
        #expect(ENVerificationAPIKey.lookupHMACs(of: "\(parts[0]).2.\(parts[2])", secrets: secrets) == nil)
        #expect(ENVerificationAPIKey.lookupHMACs(of: "\(parts[0])x.1.\(parts[2])", secrets: secrets) == nil)
        let other = try ENVerificationSecrets(masterKey: Data(repeating: 2, count: 32))
        #expect(ENVerificationAPIKey.lookupHMACs(of: key, secrets: other) == nil)
        // A rotated-in signature key still accepts keys signed with the old one.
        let rotated = try ENVerificationSecrets(
            codeDatabaseKeys: other.codeDatabaseKeys, apiKeyDatabaseKeys: secrets.apiKeyDatabaseKeys,
            apiKeySignatureKeys: other.apiKeySignatureKeys + secrets.apiKeySignatureKeys)
        #expect(ENVerificationAPIKey.lookupHMACs(of: key, secrets: rotated) == [record.keyHMAC])
        #expect(throws: ENError.self) {
            try ENVerificationAPIKey.create(name: "  ", type: .device, secrets: secrets, now: Date())
        }
        #expect(throws: ENError.self) { try ENVerificationSecrets(masterKey: Data(count: 16)) }
    }

    @Test("Codes are stored only as HMACs keyed by the secrets")
    func codeHMACs() throws {
        let secrets = try ENVerificationSecrets(masterKey: Data(repeating: 3, count: 32))
        let hmac = secrets.codeHMAC("12345678")
        #expect(hmac.count == 86 && !hmac.contains("12345678"))
        #expect(secrets.codeHMACs("12345678") == [hmac])
        #expect(secrets.codeHMAC("12345679") != hmac)
    }
}
