import ENCore
import ENKeyServer
import ENTestSupport
import Foundation
import Testing

/// The HTTP-level answers of the publish API (the table of Google's `internal/jsonutil/unmarshal.go` and
/// `publish_v1.go`): status, code, headers and padding of every reply.
@Suite("Publish HTTP")
struct PublishHTTPTests {
    /// Every v1 reply is JSON, says `x-api-version: v1` and carries 1024...2047 random bytes of padding.
    private func expectV1(_ reply: ENPublishHTTPResponse, _ status: Int, _ code: ENPublishErrorCode?) {
        #expect(reply.status == status)
        #expect(reply.response.code == code)
        #expect(reply.headers["x-api-version"] == "v1")
        #expect(reply.headers["content-type"] == "application/json")
        let padding = Data(base64Encoded: reply.response.padding)
        #expect(padding.map { (1024...2047).contains($0.count) } == true)
        #expect((try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] != nil)
    }

    private func validBody(padding: String = "") -> String {
        PublishRequestBody(
            keys: [ENTemporaryExposureKey(keyData: keyData(1), rollingStartNumber: today.adding(-144))],
            healthAuthorityID: appID, padding: padding
        ).json
    }

    @Test(arguments: [nil, "", "text/plain", "Application/JSON", "application/jso", "json"])
    func refusesOtherContentTypesWith415(_ contentType: String?) async throws {
        let test = try PublishTest()
        expectV1(await test.post(validBody(), contentType: contentType), 415, .badRequest)
        #expect(try await test.storedKeys().isEmpty)
    }

    @Test(arguments: ["application/json", "application/json; charset=utf-8", "application/jsonx"])
    func acceptsContentTypesStartingWithApplicationJSON(_ contentType: String) async throws {
        let test = try PublishTest()
        expectV1(await test.post(validBody(), contentType: contentType), 200, nil)
    }

    @Test func refusesBodiesOverTheLimitWith413() async throws {
        let test = try PublishTest()
        let big = validBody(padding: String(repeating: "A", count: 64_000))
        expectV1(await test.post(big), 413, .badRequest)
        // What an HTTP layer that stopped reading passes: the first 64,000 bytes and the flag.
        let cut = Data(big.utf8.prefix(64_000))
        expectV1(
            await test.handler.handle(contentType: "application/json", body: cut, bodyExceedsLimit: true), 413,
            .badRequest)
        // A body of exactly 64,000 bytes is read.
        let exact = validBody(padding: String(repeating: "A", count: 64_000 - validBody().utf8.count))
        #expect(exact.utf8.count == 64_000)
        expectV1(try await PublishTest().post(exact), 200, nil)
        // A value complete within the limit, then only spaces beyond it: Go's decoder never reads past it.
        let spaced = Data((validBody() + String(repeating: " ", count: 70_000)).utf8)
        let other = try PublishTest()
        expectV1(await other.handler.handle(contentType: "application/json", body: spaced), 200, nil)
        #expect(try await other.storedKeys().count == 1)
        // A syntax error within the limit is reported as such, before the limit is reached.
        let broken = Data(("{x" + String(repeating: " ", count: 70_000)).utf8)
        expectV1(await test.handler.handle(contentType: "application/json", body: broken), 400, .badRequest)
        #expect(try await test.storedKeys().isEmpty)
    }

    @Test(arguments: [
        "{", "{\"temporaryExposureKeys\":[", "not json", "", "   ", "{}{}", "{} []", #"{"unknown":1}"#,
        #"{"healthAuthorityID":5}"#, #"{"temporaryExposureKeys":[{"rollingPeriod":"144"}]}"#, "[]",
    ])
    func refusesBadJSONWith400(_ body: String) async throws {
        let test = try PublishTest()
        let reply = await test.post(body)
        expectV1(reply, 400, .badRequest)
        #expect(reply.response.error.hasPrefix("error unmarshalling API call, code: 400: "))
        #expect(try await test.storedKeys().isEmpty)
    }

    @Test func answersEveryRequestWithFreshPadding() async throws {
        let test = try PublishTest()
        var sizes = Set<Int>()
        for _ in 0..<20 {
            let reply = await test.post("{}")
            expectV1(reply, 401, .unknownHealthAuthorityID)
            sizes.insert(Data(base64Encoded: reply.response.padding)?.count ?? 0)
        }
        #expect(sizes.count > 1)
    }

    @Test func answersChaffWithPaddingOnly() throws {
        let reply = ENPublishHandler.chaffResponse(paddingByteCount: 1500)
        #expect(reply.status == 200)
        #expect(reply.headers["x-api-version"] == nil)
        #expect(Data(base64Encoded: reply.response.padding)?.count == 1500)
        #expect(reply.response == ENPublishResponse(padding: reply.response.padding))
        let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
        #expect(object?.keys.sorted() == ["padding"])
    }
}
