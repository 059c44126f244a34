#if PostgreSQL
    public import ENCore
    import Foundation
    public import PostgresNIO

    extension ENKeyServerPostgresStore {
        /// A client configuration from a PostgreSQL URL, as `enserver --postgres` takes it:
        /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?PARAMETERS]` (`postgresql://` too; user and password
        /// percent-decoded).
        ///
        /// Parameters:
        /// - `sslmode`: `disable`, `prefer`, `require` or `verify-full`. The default is `disable` for a loopback host
        ///   or a Unix socket and `require` for any other host; off loopback only `require` and `verify-full` are
        ///   accepted, so that keys and logins never cross a network in the clear and TLS cannot be downgraded. With
        ///   TLS the server's certificate and host name are always verified (`require` is `verify-full`), against the
        ///   system's roots or the CA of `sslrootcert`.
        /// - `sslrootcert`: a PEM file of the CA certificates that may sign the server's certificate.
        /// - `host`: a Unix-socket directory or file (`?host=/var/run/postgresql`), used instead of the URL's host.
        /// - `search_path`: the schema the store's tables live in (a startup parameter of every connection).
        /// - `pool_max`: the most connections the pool opens (postgres-nio's default: 20).
        ///
        /// - Parameters:
        ///   - url: the URL.
        ///   - password: the password, when it is not in the URL (from a file or the environment); the URL's wins.
        ///   - rootCertificates: a PEM file of CA certificates, as `sslrootcert` (the URL's wins).
        /// - Throws: `ENError.Code.badParameter` naming what is wrong with the URL.
        public static func clientConfiguration(
            url: String, password: String? = nil, rootCertificates: String? = nil
        ) throws(ENError) -> PostgresClient.Configuration {
            guard let components = URLComponents(string: url), let scheme = components.scheme,
                scheme == "postgres" || scheme == "postgresql"
            else {
                throw .badParameter(
                    "want a PostgreSQL URL such as postgres://user:password@127.0.0.1:5432/keys, got \(redacted(url))",
                    context: .init(field: "url"))
            }
            guard let user = components.percentEncodedUser?.removingPercentEncoding, !user.isEmpty else {
                throw .badParameter("the PostgreSQL URL names no user", context: .init(field: "user"))
            }
            let login = components.percentEncodedPassword?.removingPercentEncoding ?? password
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            let database = path.isEmpty ? nil : path
            var parameters: [String: String] = [:]
            for item in components.queryItems ?? [] {
                guard let value = item.value else {
                    throw .badParameter(
                        "the PostgreSQL URL parameter \(item.name) has no value", context: .init(field: item.name))
                }
                parameters[item.name] = value
            }
            let known: Set = ["sslmode", "sslrootcert", "host", "search_path", "pool_max"]
            if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
                throw .badParameter(
                    "unknown PostgreSQL URL parameter \(unknown) (known: host, pool_max, search_path, sslmode, sslrootcert)",
                    context: .init(field: unknown))
            }
            var configuration: PostgresClient.Configuration
            if let socket = parameters["host"], socket.hasPrefix("/") {
                var isDirectory: ObjCBool = false
                let file =
                    FileManager.default.fileExists(atPath: socket, isDirectory: &isDirectory) && isDirectory.boolValue
                    ? "\(socket)/.s.PGSQL.\(components.port ?? 5432)" : socket
                configuration = .init(unixSocketPath: file, username: user, password: login, database: database)
            } else {
                guard let host = parameters["host"] ?? components.host, !host.isEmpty else {
                    throw .badParameter("the PostgreSQL URL names no host", context: .init(field: "host"))
                }
                let port = components.port ?? 5432
                guard (1...65_535).contains(port) else {
                    throw .badParameter(
                        "the PostgreSQL port must be 1-65535, got \(port)", context: .init(field: "port"))
                }
                let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host)
                let mode = parameters["sslmode"] ?? (loopback ? "disable" : "require")
                guard loopback || mode == "require" || mode == "verify-full" else {
                    throw .badParameter(
                        "sslmode=\(mode) would let the connection to \(host) go in the clear: off loopback, use "
                            + "sslmode=require or verify-full (the default)",
                        context: .init(field: "sslmode"))
                }
                var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
                if let roots = parameters["sslrootcert"] ?? rootCertificates {
                    guard FileManager.default.isReadableFile(atPath: roots) else {
                        throw .badParameter(
                            "sslrootcert \(roots): the CA file cannot be read", context: .init(field: "sslrootcert"))
                    }
                    tlsConfiguration.trustRoots = .file(roots)
                }
                let tls: PostgresClient.Configuration.TLS
                switch mode {
                case "disable": tls = .disable
                case "prefer": tls = .prefer(tlsConfiguration)
                case "require", "verify-full": tls = .require(tlsConfiguration)
                case let other:
                    throw .badParameter(
                        "sslmode must be disable, prefer, require or verify-full, got \(other)",
                        context: .init(field: "sslmode"))
                }
                configuration = .init(
                    host: host, port: port, username: user, password: login, database: database, tls: tls)
            }
            if let schema = parameters["search_path"] {
                configuration.options.additionalStartupParameters.append(("search_path", schema))
            }
            if let text = parameters["pool_max"] {
                guard let maximum = Int(text), maximum > 0 else {
                    throw .badParameter(
                        "pool_max must be a positive number of connections, got \(text)",
                        context: .init(field: "pool_max"))
                }
                configuration.options.maximumConnections = maximum
            }
            return configuration
        }

        /// `url` with its password replaced by `***`, for messages and logs.
        public static func redacted(_ url: String) -> String {
            guard var components = URLComponents(string: url), components.password != nil else { return url }
            components.password = "***"
            return components.string ?? "postgres://…"
        }
    }
#endif
