public import ENExportFormat
public import Foundation

extension ENSimulation {
    /// The key server the simulated devices share their keys with and download files from.
    public enum KeyServer: Sendable {
        /// An `ENDiagnosisKeyServer` in the simulation's process, on its virtual clock, signing with a key made for the run.
        case inProcess
        /// A real `enserver` (or any server with its API), started with `--test-clock` at or before the scenario's
        /// start, closed by a live verification server or open (`--verifier accept-all`): see ``RemoteKeyServer``.
        case remote(RemoteKeyServer)
    }

    /// A key server reached over HTTP: the devices post their keys to `POST /v1/publish` as Google's API
    /// wants them, and download files through `index.txt` with `ExposureNotificationKit`'s `ENKeyFileDownloader`,
    /// as apps of Google's server did. The server runs on a test clock that the simulation sets to its virtual
    /// time before each request (`POST /v1/test/clock`), and cuts its due batches at each day's detection
    /// (`POST /v1/test/export`), so that its embargo, export periods and retention work on the scenario's days.
    /// Those two routes are on the server's admin listener (`--admin-host`, `--admin-port`), ``adminURL``. All
    /// the devices publish from one address, so a town of them needs the publish rate limit off
    /// (`--publish-burst 0`).
    ///
    /// A server closed to confirmed cases (`--verifier certificate`, its default) needs ``verification``: the
    /// live verification server whose certificates it trusts, on a test clock too. Each positive device then
    /// publishes with a code issued, verified and certified there, and its keys carry the certificate's report
    /// type (confirmed test).
    ///
    /// ```sh
    /// enserver serve --database server.sqlite --region 310 --signing-key key.pem --key-id 310 \
    ///     --health-authority-id sim --certificate-issuer sim.gov --certificate-audience sim.keyserver \
    ///     --certificate-key v1=certificate.pub.pem --ephemeral-revision-tokens \
    ///     --test-clock 2020-04-01T00:00:00Z --port 8080 --admin-port 8081 --publish-burst 0
    /// ```
    ///
    /// Without ``verification`` the server must accept every publish (`--verifier accept-all`, loopback only), and
    /// keys carry no report type, so detection applies the configuration's `reportTypeNoneMap`.
    ///
    /// What differs from ``KeyServer/inProcess``, as it does with Google's server: keys still valid when shared
    /// are embargoed until they expire; a key reaches the devices only once its export period (4 hours by
    /// default) has ended and two more hours have passed.
    public struct RemoteKeyServer: Sendable {
        /// The server's root URL (`http://127.0.0.1:8080`).
        public var serverURL: URL
        /// The server's `--export-root` (empty: none).
        public var exportRoot: String
        /// The server's `--health-authority-id`.
        public var healthAuthorityID: String
        /// The public key the devices trust for the server's files, with the server's `--key-id` and
        /// `--key-version`.
        public var verificationKey: ENExportVerificationKey
        /// The server's `--region`.
        public var region: String
        /// The server's admin listener (`http://127.0.0.1:8081`), where its test clock's routes are.
        public var adminURL: URL
        /// The verification server whose certificates the key server requires, or `nil` for a key server that
        /// accepts every publish (`--verifier accept-all`).
        public var verification: RemoteVerificationServer?

        /// A remote key server.
        ///
        /// - Parameters:
        ///   - serverURL: the server's public listener (publish, `index.txt`, files).
        ///   - adminURL: the server's admin listener; `nil`: `serverURL` (a server that serves the test clock's
        ///     routes on its one listener).
        ///   - exportRoot: the server's `--export-root`.
        ///   - healthAuthorityID: the app's `healthAuthorityID`, as the server's `--health-authority-id`.
        ///   - verificationKey: the public key the devices trust for the server's files.
        ///   - region: the server's `--region`.
        ///   - verification: the verification server that certifies the devices' keys; `nil` for a key server
        ///     started with `--verifier accept-all`.
        public init(
            serverURL: URL, adminURL: URL? = nil, exportRoot: String = "", healthAuthorityID: String,
            verificationKey: ENExportVerificationKey, region: String, verification: RemoteVerificationServer? = nil
        ) {
            self.verification = verification
            self.serverURL = serverURL
            self.adminURL = adminURL ?? serverURL
            self.exportRoot = exportRoot
            self.healthAuthorityID = healthAuthorityID
            self.verificationKey = verificationKey
            self.region = region
        }
    }
}
