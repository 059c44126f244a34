#if TLS
    package import NIOSSL
#endif

/// The certificate chain and private key of a public listener's HTTPS (`--tls-certificate`, `--tls-key`), as
/// PEM text; served through Hummingbird's TLS channel (swift-nio-ssl), in builds with the `TLS` trait.
package struct ServerTLS: Sendable {
    /// The server's certificate, then any intermediates, in PEM.
    package var certificateChainPEM: String
    /// The certificate's private key, in PEM.
    package var privateKeyPEM: String

    package init(certificateChainPEM: String, privateKeyPEM: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }

    #if TLS
        /// swift-nio-ssl's server configuration: TLS 1.2 or later with its default ciphers.
        package func configuration() throws(ServerFailure) -> TLSConfiguration {
            let chain: [NIOSSLCertificate]
            do {
                chain = try NIOSSLCertificate.fromPEMBytes(Array(certificateChainPEM.utf8))
            } catch {
                throw ServerFailure("--tls-certificate: not a PEM certificate chain: \(error)")
            }
            guard !chain.isEmpty else { throw ServerFailure("--tls-certificate: no certificate in the file") }
            let key: NIOSSLPrivateKey
            do {
                key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
            } catch {
                throw ServerFailure("--tls-key: not a PEM private key: \(error)")
            }
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            return configuration
        }
    #endif
}
