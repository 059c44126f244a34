import ENCore
import ENHTTPServer
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import EnserverKit
import Foundation
import Testing

/// The listeners' limits over real sockets: the admin listener apart, the read timeout, the body cap, the publish
/// rate limit and whose address it counts.
@Suite("enserver: listeners and their limits")
struct HTTPLimitsTests {
    @Test("/metrics and the test clock's routes answer on the admin listener only, 404 on the public one")
    func adminListener() async throws {
        let sut = try ServerUnderTest()
        let (onPublic, onAdmin, health) = try await sut.http.withRunningServers(KeyServerListeners(adminPort: 0)) {
            bound in
            let adminPort = try #require(bound.adminPort)
            #expect(adminPort != bound.port)
            return (
                try await LoopbackClient(port: bound.port).request("/metrics"),
                try await LoopbackClient(port: adminPort).request("/metrics"),
                try await LoopbackClient(port: bound.port).request("/health")
            )
        }
        #expect(onPublic.status == 404)
        #expect(onAdmin.status == 200 && onAdmin.text.contains("# TYPE"), "\(onAdmin.text)")
        #expect(health.status == 200)
    }

    @Test("a client sending its request a byte at a time is disconnected once the read timeout has passed")
    func slowClientDisconnected() async throws {
        let sut = try ServerUnderTest()
        let limits = HTTPLimits(idleTimeout: .seconds(600), readTimeout: .seconds(1))
        let outcome = try await sut.http.withRunningServers(KeyServerListeners(limits: limits)) { bound in
            let connection = try RawConnection(port: bound.port)
            // 200 bytes of head at one byte every 100 ms would take 20 s: the server must hang up long before.
            let head = Data(
                ("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "a", count: 200)).utf8)
            var sent = 0
            for byte in head {
                if connection.closedByServer { break }
                guard await connection.send(Data([byte])) else { break }
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            let closed = connection.closedByServer
            return (sent, closed ? true : !(await connection.send(Data("\r\n\r\n".utf8))))
        }
        #expect(outcome.1, "the connection is still open")
        #expect(outcome.0 < 200, "the whole slow head was accepted (\(outcome.0) bytes)")
    }

    @Test("a request sent at once is not cut by a short read timeout, and keep-alive idling is not a slow request")
    func promptClientServed() async throws {
        let sut = try ServerUnderTest()
        let limits = HTTPLimits(readTimeout: .seconds(1))
        let reply = try await sut.http.withRunningServers(KeyServerListeners(limits: limits)) { bound in
            let connection = try RawConnection(port: bound.port)
            let request = Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            #expect(await connection.send(request))
            try await Task.sleep(for: .milliseconds(1500))
            #expect(
                await connection.send(Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
            )
            return String(decoding: await connection.readAll(), as: UTF8.self)
        }
        #expect(reply.components(separatedBy: "HTTP/1.1 200").count - 1 == 2, "\(reply)")
    }

    @Test(
        "a connection idle past the idle timeout is closed: one that never sends, and a kept-alive one after its answer"
    )
    func idleConnectionsClosed() async throws {
        let sut = try ServerUnderTest()
        let limits = HTTPLimits(idleTimeout: .seconds(1), readTimeout: .seconds(600))
        let (silent, keptAlive) = try await sut.http.withRunningServers(KeyServerListeners(limits: limits)) { bound in
            let silent = try RawConnection(port: bound.port)
            let keptAlive = try RawConnection(port: bound.port)
            #expect(await keptAlive.send(Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
            // Each read ends when the server hangs up, or after 20 s of silence if it does not.
            let nothing = await silent.readAll(timeout: 20)
            let answer = await keptAlive.readAll(timeout: 20)
            return (
                (nothing, silent.closedByServer),
                (String(decoding: answer, as: UTF8.self), keptAlive.closedByServer)
            )
        }
        #expect(silent.0.isEmpty && silent.1, "a connection that never sent stayed open")
        #expect(keptAlive.0.hasPrefix("HTTP/1.1 200"), "\(keptAlive.0)")
        #expect(keptAlive.1, "a kept-alive connection stayed open past the idle timeout")
    }

    @Test("past the connection limit a new connection waits, and is served once an open one closes")
    func connectionLimit() async throws {
        let sut = try ServerUnderTest()
        let (waited, reply) = try await sut.http.withRunningServers(
            KeyServerListeners(limits: HTTPLimits(maximumConnections: 1))
        ) { bound in
            var first: RawConnection? = try RawConnection(port: bound.port)
            try await Task.sleep(for: .milliseconds(300))
            let second = try RawConnection(port: bound.port)
            #expect(
                await second.send(Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)))
            try await Task.sleep(for: .milliseconds(500))
            let waited = !second.hasData
            withExtendedLifetime(first) {}
            first = nil  // closes the first connection
            // Served once the first closes; the read ends when the server closes (`Connection: close`), waiting up
            // to a minute for a loaded machine (sanitizer builds beside other jobs).
            return (waited, String(decoding: await second.readAll(timeout: 60), as: UTF8.self))
        }
        #expect(waited, "the second connection was served while the first was open")
        #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(200))")
    }

    @Test(
        "a 100 MB X-Chaff body is cut off after the cap: answered, then the connection closed before it is all read",
        arguments: [false, true])
    func chaffBodyCutOff(chunked: Bool) async throws {
        let sut = try ServerUnderTest()
        let total = 100 * 1024 * 1024
        let (sent, reply) = try await sut.http.withRunningServers(KeyServerListeners()) { bound in
            let connection = try RawConnection(port: bound.port, sendTimeout: 20)
            let length = chunked ? "Transfer-Encoding: chunked" : "Content-Length: \(total)"
            let head =
                "POST /v1/publish HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "X-Chaff: 1\r\n\(length)\r\n\r\n"
            #expect(await connection.send(Data(head.utf8)))
            let piece = Data(repeating: 0x41, count: 65_536)
            let framed = chunked ? Data("10000\r\n".utf8) + piece + Data("\r\n".utf8) : piece
            var sent = 0
            while sent < total, await connection.send(framed) { sent += piece.count }
            return (sent, String(decoding: await connection.readAll(timeout: 2), as: UTF8.self))
        }
        #expect(sent < total, "the server read the whole 100 MB body")
        // The answer may be lost to the reset when the client is still sending; when it arrives, it is chaff's.
        #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(200))")
    }

    @Test("a publish body over the cap is answered 413 and the connection closed")
    func oversizedPublishClosed() async throws {
        let sut = try ServerUnderTest()
        let reply = try await sut.http.withRunningServers(KeyServerListeners()) { bound in
            let connection = try RawConnection(port: bound.port, sendTimeout: 20)
            let body = Data(repeating: 0x20, count: 70_000)
            let head =
                "POST /v1/publish HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.count)\r\n\r\n"
            let sent = await connection.send(Data(head.utf8) + body)
            return (sent, String(decoding: await connection.readAll(), as: UTF8.self), connection.lastError)
        }
        #expect(reply.1.hasPrefix("HTTP/1.1 413"), "\(reply.0) \(reply.1.prefix(300)) \(String(describing: reply.2))")
    }

    /// `sut`'s routes with a publish rate limit of `burst` and one request a minute after it.
    func limited(_ sut: ServerUnderTest, burst: Int, trusting proxies: [String] = []) -> KeyServerHTTP {
        KeyServerHTTP(
            exporter: sut.http.exporter, publish: sut.http.publish,
            rateLimiter: PublishRateLimiter(burst: burst, ratePerMinute: 1),
            clientAddress: ClientAddress(trustedProxies: proxies))
    }

    @Test("the publish rate limit: the burst passes, then 429 with Retry-After, chaff counted alike")
    func rateLimit() async throws {
        let sut = try ServerUnderTest()
        let statuses = try await limited(sut, burst: 3).withRunningServer { port in
            let client = LoopbackClient(port: port)
            var replies: [HTTPReply] = []
            replies.append(try await client.publish(publishBody(count: 1)))
            for _ in 0..<3 {
                replies.append(
                    try await client.publish("{}", headers: ["Content-Type": "application/json", "X-Chaff": "1"]))
            }
            replies.append(try await client.publish(publishBody(count: 1, first: 5)))
            return replies
        }
        #expect(statuses.map(\.status) == [200, 200, 200, 429, 429])
        #expect(statuses.last?.header("retry-after").flatMap(Int.init).map { $0 > 0 } == true)
        #expect(try await sut.store.diagnosisKeysAwaitingExport().count == 1)
    }

    @Test("X-Forwarded-For names the client only when the socket's peer is a trusted proxy")
    func forwardedFor() async throws {
        let direct = ClientAddress()
        #expect(direct.client(peer: "127.0.0.1", forwardedFor: ["192.0.2.1"]) == "127.0.0.1")
        let proxied = ClientAddress(trustedProxies: ["127.0.0.1", "10.0.0.2"])
        #expect(proxied.client(peer: "127.0.0.1", forwardedFor: ["192.0.2.1"]) == "192.0.2.1")
        #expect(proxied.client(peer: "127.0.0.1", forwardedFor: ["198.51.100.7, 192.0.2.1, 10.0.0.2"]) == "192.0.2.1")
        #expect(proxied.client(peer: "::ffff:127.0.0.1", forwardedFor: ["192.0.2.1"]) == "192.0.2.1")
        #expect(proxied.client(peer: "203.0.113.9", forwardedFor: ["192.0.2.1"]) == "203.0.113.9")
        #expect(proxied.client(peer: nil, forwardedFor: []) == "unknown")

        let chaff = ["Content-Type": "application/json", "X-Chaff": "1"]
        let from: @Sendable (String) -> [String: String] = { address in
            chaff.merging(["X-Forwarded-For": address]) { $1 }
        }
        let sut = try ServerUnderTest()
        // Untrusted: the header changes nothing, the socket's address is spent after one request.
        let untrusted = try await limited(sut, burst: 1).withRunningServer { port in
            let client = LoopbackClient(port: port)
            return [
                try await client.publish("{}", headers: from("192.0.2.1")).status,
                try await client.publish("{}", headers: from("192.0.2.2")).status,
            ]
        }
        #expect(untrusted == [200, 429])
        // Behind a trusted proxy on loopback: each forwarded address has its own bucket.
        let trusted = try await limited(sut, burst: 1, trusting: ["127.0.0.1"]).withRunningServer { port in
            let client = LoopbackClient(port: port)
            return [
                try await client.publish("{}", headers: from("192.0.2.1")).status,
                try await client.publish("{}", headers: from("192.0.2.1")).status,
                try await client.publish("{}", headers: from("192.0.2.2")).status,
            ]
        }
        #expect(trusted == [200, 429, 200])
    }

    @Test("the rate limiter refills at its rate and keeps at most its maximum of clients")
    func rateLimiterBuckets() {
        let now = Locked(0.0)
        let limiter = PublishRateLimiter(
            burst: 2, ratePerMinute: 60, maximumClients: 10, clock: { now.withLock { $0 } })
        #expect(limiter.take(client: "a") == nil)
        #expect(limiter.take(client: "a") == nil)
        let wait = limiter.take(client: "a")
        #expect(wait.map { $0 > 0 && $0 <= 1 } == true, "\(String(describing: wait))")
        now.withLock { $0 += 1 }
        #expect(limiter.take(client: "a") == nil)
        for n in 0..<100 { _ = limiter.take(client: "client \(n)") }
        #expect(limiter.clientCount <= 10)
    }
}
