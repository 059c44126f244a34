package import ENHTTPServer

/// Where a ``KeyServerHTTP`` listens and with what limits: the public listener (the publish API, the files,
/// `index.txt`, the exposure configuration, health) and, when `adminPort` is set, the admin listener (`/metrics`,
/// health and the test clock's routes), which the public one never serves.
package struct KeyServerListeners: Sendable {
    /// The public listener's address.
    package var host: String
    /// The public listener's port (0: any free port).
    package var port: Int
    /// The admin listener's address.
    package var adminHost: String
    /// The admin listener's port (0: any free port); `nil`: no admin listener.
    package var adminPort: Int?
    /// The limits of both listeners.
    package var limits: HTTPLimits
    /// The HTTPS certificate and key of both listeners (the admin listener's routes move the test clock and tell
    /// chaff from real publishes); `nil`: plain HTTP.
    package var tls: ServerTLS?

    package init(
        host: String = "127.0.0.1", port: Int = 0, adminHost: String = "127.0.0.1", adminPort: Int? = nil,
        limits: HTTPLimits = HTTPLimits(), tls: ServerTLS? = nil
    ) {
        self.tls = tls
        self.host = host
        self.port = port
        self.adminHost = adminHost
        self.adminPort = adminPort
        self.limits = limits
    }

    /// The ports the listeners bound.
    package struct Bound: Sendable {
        /// The public listener's port.
        package var port: Int
        /// The admin listener's port, when there is one.
        package var adminPort: Int?
    }
}
