import ENVerificationServer
import Foundation
import Testing

/// Google's request and response JSON (its `docs/api.md` examples and `pkg/api` tests) read and written as its
/// server reads (`BindJSON`) and writes (`json.Encoder`) them.
@Suite("Verification API JSON")
struct VerificationJSONTests {
    private func decode<R: ENVerificationRequest>(
        _ type: R.Type, _ json: String, contentType: String? = "application/json"
    )
        -> Result<R, ENVerificationRequestDecoder.BindError>
    {
        ENVerificationRequestDecoder.decode(type, contentType: contentType, body: Data(json.utf8))
    }

    @Test("docs/api.md's verify and certificate requests")
    func docsRequests() throws {
        let verify = try decode(
            ENVerifyCodeRequest.self, #"{"code": "<the code>", "accept": ["confirmed"], "padding": "<bytes>"}"#
        ).get()
        #expect(verify == ENVerifyCodeRequest(code: "<the code>", accept: ["confirmed"]))
        let certificate = try decode(
            ENVerificationCertificateRequest.self,
            #"{"token": "token from verifyCodeResponse", "ekeyhmac": "hmac of exposure keys, base64 encoded", "padding": "<bytes>"}"#
        ).get()
        #expect(certificate.token == "token from verifyCodeResponse")
        #expect(certificate.ekeyhmac == "hmac of exposure keys, base64 encoded")
        let status = try decode(ENCodeStatusRequest.self, #"{"uuid":"abc","padding":{"any":["json"]}}"#).get()
        #expect(status.uuid == "abc")
        let issue = try decode(
            ENIssueCodeRequest.self,
            #"{"symptomDate": "2020-07-01", "testDate": "2020-07-02", "testType": "confirmed", "tzOffset": -420.5, "#
                + #""phone": "", "smsTemplateLabel": "my sms template", "padding": "<bytes>", "uuid": "", "#
                + #""externalIssuerID": "external-ID", "onlyGenerateSMS": false}"#
        ).get()
        #expect(issue.tzOffset == -420.5)
        #expect(issue.externalIssuerID == "external-ID")
        #expect(issue.smsTemplateLabel == "my sms template")
    }

    @Test("BindJSON's refusals: content type, unknown fields, types, emptiness, size")
    func bindRefusals() throws {
        #expect(
            decode(ENVerifyCodeRequest.self, "{}", contentType: "text/plain").failure
                == "content-type is not application/json")
        #expect(
            decode(ENVerifyCodeRequest.self, "{}", contentType: nil).failure == "content-type is not application/json")
        #expect(decode(ENVerifyCodeRequest.self, #"{"code":"1","extra":1}"#).failure == #"unknown field "\"extra\"""#)
        #expect(decode(ENVerifyCodeRequest.self, #"{"code":1}"#).failure == #"invalid value "code""#)
        #expect(decode(ENVerifyCodeRequest.self, "  ").failure == "body must not be empty")
        #expect(decode(ENVerifyCodeRequest.self, "{").failure == "malformed json")
        let big = ENVerificationRequestDecoder.decode(
            ENVerifyCodeRequest.self, contentType: "application/json", body: Data(count: 64_001))
        #expect(big.failure == "http: request body too large")
        // Go matches names ignoring case; null leaves the zero value.
        #expect(try decode(ENVerifyCodeRequest.self, #"{"CODE":"12345678","Accept":null}"#).get().code == "12345678")
        #expect(decode(ENVerifyCodeRequest.self, "null").success?.code == "")
        #expect(
            try decode(ENBatchIssueCodeRequest.self, #"{"codes":[{"testType":"confirmed"}]}"#).get().codes.first?
                .testType
                == "confirmed")
        #expect(
            decode(ENBatchIssueCodeRequest.self, #"{"codes":[{"bogus":1}]}"#).failure == #"unknown field "\"bogus\"""#)
    }

    @Test("Responses are written as Go writes them: field order, omitempty, HTML escaping, final newline")
    func responseEncoding() throws {
        let verify = ENVerifyCodeResponse(
            testType: "confirmed", symptomDate: "2020-07-01", token: "a.b.c", padding: Data())
        #expect(
            String(decoding: verify.jsonData, as: UTF8.self)
                == #"{"padding":"","testtype":"confirmed","symptomDate":"2020-07-01","token":"a.b.c"}"# + "\n")
        let error = ENVerificationAPIError(status: 400, message: "unknown field \"<x>&\"", code: .unparsableRequest)
        #expect(
            String(decoding: error.jsonData, as: UTF8.self)
                == #"{"error":"unknown field \"\u003cx\u003e\u0026\"","errorCode":"unparsable_request","error_code":"unparsable_request"}"#
                + "\n")
        #expect(
            String(decoding: ENVerificationAPIError.internalError.jsonData, as: UTF8.self)
                == #"{"error":"internal error","errorCode":"internal_server_error","error_code":"internal_server_error"}"#
                + "\n")
        let issue = ENIssueCodeResponse(
            uuid: "u", code: "12345678", expiresAt: "Sat, 01 Aug 2020 12:15:00 UTC", expiresAtTimestamp: 1_596_284_100,
            padding: Data([1, 2, 3]))
        #expect(
            String(decoding: issue.jsonData, as: UTF8.self)
                == #"{"padding":"AQID","uuid":"u","code":"12345678","expiresAt":"Sat, 01 Aug 2020 12:15:00 UTC","expiresAtTimestamp":1596284100}"#
                + "\n")
        let status = ENCodeStatusResponse(
            claimed: false, expiresAtTimestamp: 5, longExpiresAtTimestamp: 0, padding: Data())
        #expect(
            String(decoding: status.jsonData, as: UTF8.self)
                == #"{"padding":"","claimed":false,"expiresAtTimestamp":5}"# + "\n")
        let request = ENVerifyCodeRequest(code: "1", padding: Data())
        #expect(String(decoding: request.jsonData, as: UTF8.self) == #"{"padding":"","code":"1","accept":null}"# + "\n")
    }

    @Test("Unset padding is 1,024 to 2,047 random bytes, base64")
    func randomPadding() throws {
        for _ in 0..<20 {
            let data = try JSONEncoder().encode(ENVerificationCertificateResponse(certificate: "c"))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let text = try #require(object["padding"] as? String)
            let padding = try #require(Data(base64Encoded: text))
            #expect((1024..<2048).contains(padding.count))
        }
    }

    @Test("Responses decode from Google's JSON, unknown fields ignored")
    func responseDecoding() throws {
        let json = #"{"padding":"xyz","testtype":"likely","testDate":"2020-07-02","token":"t","future":1}"#
        let response = try JSONDecoder().decode(ENVerifyCodeResponse.self, from: Data(json.utf8))
        #expect(response.testType == "likely")
        #expect(response.testDate == "2020-07-02")
        #expect(response.symptomDate == "")
        let error = try JSONDecoder().decode(
            ENVerificationCertificateResponse.self, from: Data(#"{"error":"e","errorCode":"token_expired"}"#.utf8))
        #expect(ENVerificationErrorCode(rawValue: error.errorCode) == .tokenExpired)
    }

}

extension Result {
    var failure: String? {
        if case .failure(let error) = self { return (error as? ENVerificationRequestDecoder.BindError)?.message }
        return nil
    }
    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
