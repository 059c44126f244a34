public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP connection to 127.0.0.1 through the socket API, for tests that misbehave as a client: send a request a
/// byte at a time, or a body that never ends, and see when the server hangs up. Sends and reads block, so they run
/// on a thread of their own: a blocked cooperative thread could starve the server in the same process.
public final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; a send blocks at most `sendTimeout` seconds.
    public init(port: Int, sendTimeout: Int = 30) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var timeout = timeval(tv_sec: sendTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(descriptor) }

    /// The `errno` of the last failed read, if any.
    public private(set) var lastError: Int32?

    /// Sends all of `data`; `false` when the connection failed (the server closed it) before all was sent.
    public func send(_ data: Data) async -> Bool {
        await offThePool { self.sendBlocking(data) }
    }

    /// What the server sent until it closed the connection or `seconds` passed with nothing more. The default is
    /// long because an answer can be late without being wrong: a server in the test's process answers from the
    /// cooperative pool, which the suite's other tests (CPU-bound under a sanitizer) can hold for seconds.
    public func readAll(timeout seconds: Int = 60) async -> Data {
        await offThePool { self.readAllBlocking(timeout: seconds) }
    }

    private func sendBlocking(_ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                    let sent = Glibc.send(
                        descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    let sent = Darwin.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, 0)
                #endif
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    /// Whether the server has sent anything yet, without waiting.
    public var hasData: Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// Whether the server has closed the connection (end of stream or reset), without waiting.
    public var closedByServer: Bool {
        var byte: UInt8 = 0
        let received = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if received == 0 { return true }
        return received < 0 && errno != EAGAIN && errno != EWOULDBLOCK
    }

    private func readAllBlocking(timeout seconds: Int) -> Data {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let received = recv(descriptor, &buffer, buffer.count, 0)
            if received < 0 { lastError = errno }
            if received <= 0 { break }
            data.append(contentsOf: buffer[0..<received])
        }
        return data
    }
}

/// Runs `work`, which blocks, on a thread of its own: a blocked cooperative thread could starve a server running in
/// the test's process.
public func offThePool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
