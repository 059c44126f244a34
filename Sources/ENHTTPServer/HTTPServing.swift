import Hummingbird
import HummingbirdCore
package import Logging
import ServiceLifecycle
package import UnixSignals

/// Runs a server's listeners, each with the same limits, as one service group: the serving loop `enserver` and
/// `enverify` share.
package enum HTTPServing {
    /// Serves every listener with `limits` (and the connection cap of `limits` on each) until `body` returns, then
    /// shuts them down gracefully; `body` gets the bound ports, in the order of `listeners`. With `shutdownSignals`
    /// (SIGTERM, SIGINT for a process), a signal ends the servers too and `body` is cancelled.
    ///
    /// - Throws: ``ServerFailure`` (exit 1) when a listener stops before it listens (its address is taken, say),
    ///   or what `body` throws.
    package static func withRunningServers<Value: Sendable>(
        _ listeners: [HTTPListener], limits: HTTPLimits = HTTPLimits(), shutdownSignals: [UnixSignal] = [],
        logger: Logger, _ body: @escaping @Sendable ([Int]) async throws -> Value
    ) async throws -> Value {
        let (announcements, announce) = AsyncStream.makeStream(of: (index: Int, port: Int).self)
        var services: [any Service] = []
        for (index, listener) in listeners.enumerated() {
            let configuration = ApplicationConfiguration(
                address: .hostname(listener.host, port: listener.port),
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections, logger: logger))
            services.append(
                listener.application(try listener.server(limits: limits), configuration, logger) { port in
                    announce.yield((index, port))
                })
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: shutdownSignals, logger: logger))
        return try await withThrowingTaskGroup(of: Value?.self) { tasks in
            tasks.addTask {
                try await group.run()
                announce.finish()
                return nil
            }
            var ports = Array(repeating: -1, count: listeners.count)
            var announced = 0
            for await (index, port) in announcements {
                ports[index] = port
                announced += 1
                if announced == listeners.count { break }
            }
            guard announced == listeners.count else {
                // A listener stopped before it listened: its error, or a plain failure.
                while let next = try await tasks.next() { _ = next }
                let addresses = listeners.map { "\($0.host):\($0.port)" }.joined(separator: ", ")
                throw ServerFailure("the server stopped before it listened on \(addresses)", exitCode: 1)
            }
            let bound = ports
            tasks.addTask {
                let value = try await body(bound)
                await group.triggerGracefulShutdown()
                return value
            }
            var result: Value?
            do {
                while let next = try await tasks.next() {
                    // The body's value, or the servers stopped (a signal, or after the body): end the body too.
                    if let next { result = next } else { tasks.cancelAll() }
                }
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            guard let result else { throw CancellationError() }
            return result
        }
    }
}
