import ENCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-connection HTTP server on 127.0.0.1 whose body does not end: it answers 200 without a length and sends
/// zeros until the client goes away or `cap` bytes are sent (so that a client that never stops still ends the
/// test, and the test can tell: `sent` reaches `cap`).
///
/// After the first `fullSpeedBytes` it sends at most one 64 KiB chunk a millisecond (about 64 MB/s): a client that
/// stops at its limit has cancelled long before (the cancellation takes the time of URLSession's queues, seconds on
/// a loaded machine), while one that never stops still reaches any cap, only later.
final class EndlessHTTPServer: Sendable {
    let port: UInt16
    let cap: Int
    let fullSpeedBytes: Int
    private let listener: Int32
    private let sent = Locked(0)
    private let finished = DispatchSemaphore(value: 0)

    init(cap: Int, fullSpeedBytes: Int = 32 << 20) throws {
        self.cap = cap
        self.fullSpeedBytes = fullSpeedBytes
        #if canImport(Darwin)
            let listener = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// How many body bytes the server sent before the client went away (or the cap), once it has stopped.
    func bytesSent() -> Int {
        finished.wait()
        finished.signal()
        return sent.withLock { $0 }
    }

    private func serve() {
        defer {
            close(listener)
            finished.signal()
        }
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        var request = [UInt8](repeating: 0, count: 4096)
        _ = read(connection, &request, request.count)
        let header = Array("HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nConnection: close\r\n\r\n".utf8)
        guard transmit(header, on: connection) else { return }
        let chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let sentSoFar = sent.withLock { $0 }
            guard sentSoFar < cap else { return }
            if sentSoFar >= fullSpeedBytes { usleep(1000) }
            guard transmit(chunk, on: connection) else { return }
            sent.withLock { $0 += chunk.count }
        }
    }

    /// Writes all of `bytes`; false when the client has gone (no SIGPIPE).
    private func transmit(_ bytes: [UInt8], on connection: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Darwin)
                let flags: Int32 = 0
                var one: Int32 = 1
                setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #else
                let flags = Int32(MSG_NOSIGNAL)
            #endif
            let written = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, flags) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
