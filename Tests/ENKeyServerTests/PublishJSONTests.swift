import ENCore
import ENKeyServer
import Foundation
import Testing

/// The publish request and response JSON, read and written as Go's `encoding/json` does for Google's types.
@Suite("Publish JSON")
struct PublishJSONTests {
    private func decode(_ text: String) throws(ENError) -> ENPublishRequest {
        try ENPublishRequest(json: Data(text.utf8))
    }

    @Test func decodesEveryFieldByItsExactName() throws {
        let request = try decode(
            """
            {"temporaryExposureKeys":[{"key":"AAECAwQFBgcICQoLDA0ODw==","rollingStartNumber":2963664,
            "rollingPeriod":144,"transmissionRisk":5},{"key":"x","rollingStartNumber":-3,"rollingPeriod":1}],
            "healthAuthorityID":"com.example.app","verificationPayload":"a.b.c","hmacKey":"c2VjcmV0",
            "symptomOnsetInterval":2963520,"traveler":true,"revisionToken":"dG9rZW4=","padding":"cGFk"}
            """)
        #expect(
            request
                == ENPublishRequest(
                    temporaryExposureKeys: [
                        ENPublishExposureKey(
                            key: "AAECAwQFBgcICQoLDA0ODw==", rollingStartNumber: 2_963_664, rollingPeriod: 144,
                            transmissionRisk: 5),
                        ENPublishExposureKey(key: "x", rollingStartNumber: -3, rollingPeriod: 1),
                    ],
                    healthAuthorityID: "com.example.app", verificationPayload: "a.b.c", hmacKey: "c2VjcmV0",
                    symptomOnsetInterval: 2_963_520, traveler: true, revisionToken: "dG9rZW4=", padding: "cGFk"))
    }

    @Test func matchesFieldNamesCaseInsensitivelyAsGoDoes() throws {
        // Google's own docs send `hmackey`; Go also folds the Kelvin sign to K and the long s to S.
        let request = try decode(
            """
            {"TemporaryExposureKeys":[{"KEY":"k","rollingstartnumber":7,"ROLLINGPERIOD":3,"\u{212A}ey":"kelvin"}],
            "hmackey":"h","HEALTHAUTHORITYID":"id","\u{17F}ymptomOnsetInterval":9,"Traveler":true}
            """)
        #expect(request.hmacKey == "h")
        #expect(request.healthAuthorityID == "id")
        #expect(request.symptomOnsetInterval == 9)
        #expect(request.traveler)
        #expect(
            request.temporaryExposureKeys == [
                ENPublishExposureKey(key: "kelvin", rollingStartNumber: 7, rollingPeriod: 3)
            ])
        // A name given twice (in any case) takes its last value.
        #expect(try decode(#"{"hmacKey":"a","HMACKEY":"b"}"#).hmacKey == "b")
    }

    @Test func transmissionRiskIsOptionalAndNullLeavesTheDefault() throws {
        let request = try decode(
            #"{"temporaryExposureKeys":[{"key":"k","rollingStartNumber":1,"rollingPeriod":2},null],"traveler":null,"hmacKey":null}"#
        )
        #expect(
            request.temporaryExposureKeys == [
                ENPublishExposureKey(key: "k", rollingStartNumber: 1, rollingPeriod: 2), ENPublishExposureKey(),
            ])
        #expect(!request.traveler)
        #expect(try decode("null") == ENPublishRequest())
        #expect(try decode(#"{"temporaryExposureKeys":null}"#) == ENPublishRequest())
    }

    @Test(arguments: [
        (#"{"hmacKey":"a","extra":1}"#, "extra"),
        (#"{"temporaryExposureKeys":[{"key":"k","rollingPeriod":1,"reportType":"confirmed"}]}"#, "reportType"),
        (#"{"temporaryExposureKey":[]}"#, "temporaryExposureKey"),
    ])
    func refusesUnknownFields(_ body: String, _ field: String) {
        let error = #expect(throws: ENError(.badFormat)) { try decode(body) }
        #expect(error?.context.field == field)
    }

    @Test(arguments: [
        #"{"symptomOnsetInterval":"5"}"#,
        #"{"symptomOnsetInterval":1.5}"#,
        #"{"symptomOnsetInterval":1e2}"#,
        #"{"symptomOnsetInterval":1.0}"#,
        #"{"symptomOnsetInterval":2147483648}"#,
        #"{"symptomOnsetInterval":-2147483649}"#,
        #"{"temporaryExposureKeys":[{"transmissionRisk":9223372036854775808}]}"#,
        #"{"temporaryExposureKeys":[{"rollingPeriod":true}]}"#,
        #"{"temporaryExposureKeys":{}}"#,
        #"{"temporaryExposureKeys":["key"]}"#,
        #"{"traveler":1}"#,
        #"{"padding":5}"#,
        #"{"hmacKey":["a"]}"#,
        #"[]"#,
        #""publish""#,
        #"42"#,
    ])
    func refusesWrongJSONTypes(_ body: String) {
        #expect(throws: ENError(.badFormat)) { try decode(body) }
    }

    @Test func acceptsIntegersAtTheEdgesOfTheirTypes() throws {
        #expect(try decode(#"{"symptomOnsetInterval":2147483647}"#).symptomOnsetInterval == .max)
        #expect(try decode(#"{"symptomOnsetInterval":-2147483648}"#).symptomOnsetInterval == .min)
        #expect(try decode(#"{"symptomOnsetInterval":-0}"#).symptomOnsetInterval == 0)
        #expect(
            try decode(#"{"temporaryExposureKeys":[{"transmissionRisk":9223372036854775807}]}"#)
                .temporaryExposureKeys[0].transmissionRisk == .max)
    }

    @Test(arguments: [
        "", " \n\t ", "{", #"{"hmacKey":"#, #"{"hmacKey":"abc"#, "{}{}", #"{} {"a":1}"#, "{} x", "[}", "{,}",
        #"{"a" 1}"#, "tru", "nul", #"{"hmacKey":"\x"}"#, "{\"hmacKey\":\"\u{01}\"}", "01", "-", "{}1",
    ])
    func refusesBodiesThatAreNotOneJSONValue(_ body: String) {
        #expect(throws: ENError(.badFormat)) { try decode(body) }
    }

    @Test func acceptsWhatGosDecoderMoreLetsThrough() throws {
        // Go's `Decoder.More` is false before a closing bracket, so such trailing bytes pass, as on Google's server.
        #expect(try decode("{}]") == ENPublishRequest())
        #expect(try decode("{} }") == ENPublishRequest())
        #expect(try decode(" {} \n") == ENPublishRequest())
    }

    @Test func unescapesStringsAsGoDoes() throws {
        let request = try decode(#"{"hmacKey":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x"}"#)
        #expect(request.hmacKey == "a\"\\/\u{8}\u{C}\n\r\t\u{E9}\u{1F600}\u{FFFD}x")
    }

    @Test func writesTheResponseAsGoMarshalsIt() {
        #expect(String(decoding: ENPublishResponse().jsonData(), as: UTF8.self) == "{}")
        // insertedExposures is left out when 0 (omitempty).
        let refused = ENPublishResponse(error: "a <b> & c", code: .badRequest, padding: "cA==")
        #expect(
            String(decoding: refused.jsonData(), as: UTF8.self)
                == #"{"error":"a \u003cb\u003e \u0026 c","code":"bad_request","padding":"cA=="}"#)
        let accepted = ENPublishResponse(
            revisionToken: "dG9r", insertedExposures: 3, error: "1 error occurred:\n\t* x\n\n", code: .partialFailure,
            padding: "cA==", warnings: ["w1", "w\u{2028}"])
        #expect(
            String(decoding: accepted.jsonData(), as: UTF8.self)
                == #"{"revisionToken":"dG9r","insertedExposures":3,"error":"1 error occurred:\n\t* x\n\n","code":"partial_failure","padding":"cA==","warnings":["w1","w\u2028"]}"#
        )
        // What Foundation's reader makes of it.
        let object = try? JSONSerialization.jsonObject(with: accepted.jsonData()) as? [String: Any]
        #expect(object?["insertedExposures"] as? Int == 3)
        #expect(object?["warnings"] as? [String] == ["w1", "w\u{2028}"])
    }

    @Test func errorCodesAreGooglesStrings() {
        #expect(
            ENPublishErrorCode.allCases.map(\.rawValue) == [
                "unknown_health_authority_id", "unable_to_load_health_authority",
                "health_authority_missing_region_config",
                "health_authority_verification_certificate_invalid", "bad_request", "internal_error",
                "missing_revision_token", "invalid_revision_token", "key_already_revised",
                "invalid_report_type_transition", "partial_failure",
            ])
    }
}

/// Deeply nested JSON: scanned to Go's depth limit, never kept that deep, refused as Go refuses it.
@Suite("Publish JSON nesting")
struct PublishJSONNestingTests {
    @Test func deepValuesAreRefusedOrIgnoredWithoutDeepRecursion() async throws {
        // 9,999 nested arrays in a known field: a type error (Go: 400).
        let deep = String(repeating: "[", count: 9_999) + String(repeating: "]", count: 9_999)
        #expect(throws: ENError(.badFormat)) { try ENPublishRequest(json: Data("{\"hmacKey\":\(deep)}".utf8)) }
        // 10,001: past Go's scanner limit, a syntax error (also 400).
        let deeper = String(repeating: "[", count: 10_001) + String(repeating: "]", count: 10_001)
        #expect(throws: ENError(.badFormat)) { try ENPublishRequest(json: Data(deeper.utf8)) }
        // Cut short beyond the body limit: 413, as Go's reader fails before the value ends; but 64,000 brackets
        // pass Go's depth limit within the body: 400.
        let test = try PublishTest()
        let open = Data((String(repeating: "[", count: 5_000) + String(repeating: " ", count: 59_000)).utf8)
        let cut = await test.handler.handle(contentType: "application/json", body: open, bodyExceedsLimit: true)
        #expect(cut.status == 413)
        let brackets = Data(String(repeating: "[", count: 64_000).utf8)
        let tooDeep = await test.handler.handle(contentType: "application/json", body: brackets, bodyExceedsLimit: true)
        #expect(tooDeep.status == 400)
        let broken = Data((String(repeating: "[", count: 20) + "x").utf8)
        #expect(await test.handler.handle(contentType: "application/json", body: broken).status == 400)
    }
}
