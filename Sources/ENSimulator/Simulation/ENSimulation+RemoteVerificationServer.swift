public import Foundation

extension ENSimulation {
    /// A verification server reached over HTTP (`enverify`, or any server with the API of Google's
    /// exposure-notifications-verification-server), which closes a ``RemoteKeyServer`` to confirmed cases.
    ///
    /// For each positive diagnosis the simulation does what a health authority and its app do: the health
    /// authority's staff issue a code for a confirmed test with the symptom onset date (`POST /api/issue` with
    /// ``adminAPIKey``), and the phone's app exchanges the code for a token and the token and an HMAC of its keys
    /// for a certificate (`ENVerificationClient` over HTTP with ``deviceAPIKey``), which it sends with the keys to
    /// the key server. The server runs on a test clock that the simulation moves with its virtual time before each
    /// diagnosis (`POST /api/test/clock` on the admin listener), so that codes, tokens and certificates are issued
    /// and checked on the scenario's days.
    ///
    /// ```sh
    /// enverify apikey create --database verify.sqlite --type admin --name lab      # the admin API key
    /// enverify apikey create --database verify.sqlite --type device --name app     # the device API key
    /// enverify serve --database verify.sqlite --issuer sim.gov --audience sim.keyserver \
    ///     --certificate-key certificate.pem --certificate-key-id v1 --token-key token.pem \
    ///     --test-clock 2020-04-01T00:00:00Z --port 8090 --admin-port 8091
    /// enserver serve … --verifier certificate --certificate-issuer sim.gov \
    ///     --certificate-audience sim.keyserver --certificate-key v1=certificate.pub.pem
    /// ```
    public struct RemoteVerificationServer: Sendable {
        /// The device API's root URL (`http://127.0.0.1:8090`): `/api/verify`, `/api/certificate`.
        public var serverURL: URL
        /// The admin API's root URL (`http://127.0.0.1:8091`): `/api/issue` and the test clock.
        public var adminURL: URL
        /// An API key of type device, which the app verifies codes and gets certificates with.
        public var deviceAPIKey: String
        /// An API key of type admin, which the health authority's staff issue codes with.
        public var adminAPIKey: String

        /// A remote verification server.
        ///
        /// - Parameters:
        ///   - serverURL: the device API's listener.
        ///   - adminURL: the admin API's listener.
        ///   - deviceAPIKey: a device API key (`enverify apikey create --type device`).
        ///   - adminAPIKey: an admin API key (`enverify apikey create --type admin`).
        public init(serverURL: URL, adminURL: URL, deviceAPIKey: String, adminAPIKey: String) {
            self.serverURL = serverURL
            self.adminURL = adminURL
            self.deviceAPIKey = deviceAPIKey
            self.adminAPIKey = adminAPIKey
        }
    }
}
