package import HummingbirdCore
import NIOCore

/// The limits every `enserver` and `enverify` listener enforces on its clients, all on by default: how long a connection may idle,
/// how long a request may take to arrive, how many connections are open at once, and how large a body may be.
package struct HTTPLimits: Sendable {
    /// A connection with nothing read or written for this long is closed (Hummingbird's HTTP/1 idle timeout).
    package var idleTimeout: Duration
    /// A request must arrive whole, head and body, within this time of its first byte, or its connection is closed
    /// (``RequestReadTimeout``): a client sending a byte now and then cannot hold a connection.
    package var readTimeout: Duration
    /// At most this many connections are open at once; more wait in the listen backlog (Hummingbird's
    /// `MaximumAvailableConnections`).
    package var maximumConnections: Int
    /// A request body over this many bytes is not read further: its connection is closed once the request is
    /// answered (``RequestBodyCap``). The publish API's own limit and Google's verification API's are 64,000 bytes.
    package var maximumBodyBytes: Int

    /// The documented defaults: 60 s idle, 30 s to send a request, 1,024 connections, 64,000-byte bodies.
    package init(
        idleTimeout: Duration = .seconds(60), readTimeout: Duration = .seconds(30), maximumConnections: Int = 1024,
        maximumBodyBytes: Int = 64_000
    ) {
        self.idleTimeout = idleTimeout
        self.readTimeout = readTimeout
        self.maximumConnections = maximumConnections
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Hummingbird's HTTP/1 configuration with these limits: the idle timeout, and the read timeout and body cap as
    /// channel handlers (made anew for each connection).
    package func http1Configuration() -> HTTP1Channel.Configuration {
        let readTimeout = TimeAmount(readTimeout)
        let maximumBodyBytes = maximumBodyBytes
        return HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                RequestReadTimeout(timeout: readTimeout), RequestBodyCap(maximumBytes: maximumBodyBytes),
            ],
            idleTimeout: TimeAmount(idleTimeout))
    }
}
