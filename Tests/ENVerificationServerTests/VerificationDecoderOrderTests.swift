import ENVerificationServer
import Foundation
import Testing

/// `BindJSON` names the first unknown field of a body, in the body's order, as Go's decoder meets it (a fuzz
/// target found two unknown fields named in a random order).
@Suite("Verification request decoder: the first unknown field")
struct VerificationDecoderOrderTests {
    private func failure<R: ENVerificationRequest>(_ type: R.Type, _ json: String) -> String? {
        guard
            case .failure(let error) = ENVerificationRequestDecoder.decode(
                type, contentType: "application/json", body: Data(json.utf8))
        else { return nil }
        return error.message
    }

    @Test func theFirstUnknownFieldInTheBodyIsNamed() {
        for _ in 0..<20 {
            #expect(
                failure(ENVerifyCodeRequest.self, #"{"zz":1,"aa":2,"code":"1"}"#) == #"unknown field "\"zz\"""#)
            #expect(failure(ENVerifyCodeRequest.self, #"{"aa":1,"zz":2}"#) == #"unknown field "\"aa\"""#)
            #expect(
                failure(ENBatchIssueCodeRequest.self, #"{"codes":[{"testType":"confirmed","yy":1,"bb":2}]}"#)
                    == #"unknown field "\"yy\"""#)
        }
    }
}
