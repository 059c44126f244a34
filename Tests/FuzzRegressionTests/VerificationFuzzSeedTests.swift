import ENTestSupport
import Foundation
import Testing

@testable import ENFuzzTargets

/// The verification server's request-body fuzz targets: their seeds (`Fuzz/Corpus/TARGET`: Google's `docs/api.md`
/// examples and bodies with live values) keep every rule, through the decoder and the service's answers.
@Suite("Verification request fuzz targets")
struct VerificationFuzzSeedTests {
    @Test(
        "every seed keeps its target's rules",
        arguments: [
            FuzzTarget.verifyRequest, .certificateRequestBody, .issueRequest, .batchIssueRequest, .codeStatusRequest,
        ])
    func seedsKeepTheRules(target: FuzzTarget) throws {
        let files = KeyServerFuzzSeedTests.seeds(target)
        #expect(files.count >= 3)
        // Google's docs/api.md has an example of every body but the batch.
        #expect(target == .batchIssueRequest || files.contains { $0.lastPathComponent == "google-api-md.json" })
        try FuzzRegressionTests.run(target, files)
    }

    @Test("placeholders are replaced byte for byte, and only where they are")
    func placeholders() {
        let bytes = Array(#"{"code":"@CODE@","x":"@CODE"}"#.utf8) + [0xFF]
        let replaced = FuzzTarget.replacing(Array("@CODE@".utf8), with: Array("12345678".utf8), in: bytes)
        #expect(replaced == Array(#"{"code":"12345678","x":"@CODE"}"#.utf8) + [0xFF])
    }
}
