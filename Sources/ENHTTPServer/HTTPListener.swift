package import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

#if TLS
    import HummingbirdTLS
#endif

/// One listener of a server: where it listens, whether it serves HTTPS, and what answers its requests. A server
/// runs its listeners together with ``HTTPServing/withRunningServers(_:limits:shutdownSignals:logger:_:)``.
package struct HTTPListener: Sendable {
    /// The address it listens on.
    package var host: String
    /// The port it listens on (0: any free port).
    package var port: Int
    /// Its HTTPS certificate and key; `nil`: plain HTTP.
    package var tls: ServerTLS?
    /// Makes the listener's application with a server, a configuration and the callback that reports the port.
    let application:
        @Sendable (
            HTTPServerBuilder, ApplicationConfiguration, Logger, @escaping @Sendable (Int) async -> Void
        ) -> any Service

    /// A listener on `host`:`port` answering with `responder`, over HTTPS when `tls` is given.
    package init<Responder: HTTPResponder>(
        host: String, port: Int, tls: ServerTLS? = nil, responder: Responder
    ) where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        self.host = host
        self.port = port
        self.tls = tls
        application = { server, configuration, logger, onServerRunning in
            Application(
                responder: responder, server: server, configuration: configuration,
                onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
                logger: logger)
        }
    }

    /// The server builder: HTTP/1 with `limits`, inside TLS when the listener has a certificate.
    func server(limits: HTTPLimits) throws(ServerFailure) -> HTTPServerBuilder {
        let http1 = HTTPServerBuilder.http1(configuration: limits.http1Configuration())
        guard let tls else { return http1 }
        #if TLS
            do {
                return try .tls(http1, tlsConfiguration: try tls.configuration())
            } catch let failure as ServerFailure {
                throw failure
            } catch {
                throw ServerFailure("\(host):\(port): TLS: \(error)")
            }
        #else
            _ = tls
            throw ServerFailure(
                "--tls-certificate, --tls-key: this server was built without the TLS trait; serve behind a TLS proxy "
                    + "(--behind-tls-proxy)")
        #endif
    }
}
