import ENCore
import ENHTTPServer
import Foundation
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The servers' log handler writes what swift-log's `StreamLogHandler` writes, line for line, and lines written from
/// several threads at once arrive whole.
@Suite("ServerLogHandler: swift-log's format, whole lines")
struct ServerLogHandlerTests {
    /// What a `StreamLogHandler` writes, collected.
    final class Collected: TextOutputStream, @unchecked Sendable {
        private let text = Locked("")
        func write(_ string: String) { text.withLock { $0 += string } }
        var value: String { text.withLock { $0 } }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "the disk is full" }
    }

    /// Everything written to the read end of a pipe until it closes.
    static func captured(_ body: (_ descriptor: Int32) -> Void) -> String {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let reader = Thread.detachNewThreadReturning(ends[0])
        body(ends[1])
        close(ends[1])
        return reader.wait()
    }

    /// Lines with their timestamps (the first field) cut off: the two handlers may write in different seconds.
    static func withoutTimestamps(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.drop { $0 != " " } }
    }

    @Test("the same lines as StreamLogHandler for every level, metadata from each source, an error and a bare label")
    func sameAsStreamLogHandler() {
        let stream = Collected()
        func events(_ logger: inout Logger) {
            logger[metadataKey: "instance"] = "a"
            logger.info("request", metadata: ["status": "200", "route": "/ROOT/FILE", "method": "GET", "ms": "0.4"])
            logger.warning("export failed", error: Failure(), metadata: ["route": "export"])
            logger.error("no metadata given here")
            logger.critical("list and map", metadata: ["list": ["a", "b"], "map": ["k": "v"]])
            logger.debug("below the level: not written")
            logger.notice("unicode é ✓ and \"quotes\"")
        }
        let provider = Logger.MetadataProvider { ["provided": "p", "instance": "overridden?"] }
        let ours = Self.captured { descriptor in
            for label in ["enserver", ""] {
                var logger = Logger(label: label) { label in
                    var handler = ServerLogHandler(label: label, level: .info, descriptor: descriptor)
                    handler.metadataProvider = provider
                    return handler
                }
                events(&logger)
            }
        }
        for label in ["enserver", ""] {
            var logger = Logger(label: label) { label in
                var handler = StreamLogHandler(label: label, stream: stream, metadataProvider: provider)
                handler.logLevel = .info
                return handler
            }
            events(&logger)
        }
        #expect(!ours.isEmpty)
        #expect(Self.withoutTimestamps(ours) == Self.withoutTimestamps(stream.value), "\n\(ours)\n\(stream.value)")
        let timestamp = ours.prefix { $0 != " " }
        #expect(timestamp.count == "2026-11-27T12:38:13+0000".count, "\(timestamp)")
    }

    @Test("lines from eight threads at once arrive whole, each once")
    func wholeLinesFromThreads() {
        let pad = String(repeating: "x", count: 200)
        let text = Self.captured { descriptor in
            let logger = Logger(label: "enserver") { ServerLogHandler(label: $0, level: .info, descriptor: descriptor) }
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for line in 0..<2000 {
                    logger.info("line", metadata: ["thread": "\(thread)", "n": "\(line)", "pad": "\(pad)"])
                }
            }
        }
        var expected = Set<Substring>()
        for thread in 0..<8 {
            for line in 0..<2000 {
                expected.insert(" info enserver: n=\(line) pad=\(pad) thread=\(thread) [EnserverTests] line")
            }
        }
        let lines = Self.withoutTimestamps(text).dropLast()  // the text ends with a newline
        #expect(lines.count == 16_000)
        #expect(Set(lines) == expected)
    }
}

extension Thread {
    /// A thread reading `descriptor` to its end; ``Reader/wait()`` returns what it read.
    static func detachNewThreadReturning(_ descriptor: Int32) -> Reader {
        let reader = Reader()
        Thread.detachNewThread {
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count <= 0 { break }
                data.append(contentsOf: buffer[0..<count])
            }
            close(descriptor)
            reader.finish(String(decoding: data, as: UTF8.self))
        }
        return reader
    }

    final class Reader: Sendable {
        private let result = Locked<String?>(nil)
        func finish(_ text: String) { result.withLockNotifyingAll { $0 = text } }
        func wait() -> String { result.withLock(when: { $0 != nil }) { $0! } }
    }
}
