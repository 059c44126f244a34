import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
import ENKeyServer
import Foundation
import Logging

/// `enserver mirror --source URL --export-dir DIR --public-key PEM`: copies another key server's export files and
/// `index.txt` into a directory, verified, as Google's `cmd/mirror` copies them into a bucket (``ENExportMirror``).
/// Once by default; every `--interval` with it.
struct MirrorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror",
        abstract: "Copy another key server's export files and index.txt into a directory, verifying every file.")

    @OptionGroup var logging: LoggingOptions

    @Option(help: "The source key server's base URL; its index is SOURCE/SOURCE-ROOT/index.txt.")
    var source: String

    @Option(help: "The prefix of the names in the source's index.txt, e.g. `exposureKeyExport-US` (default: none).")
    var sourceRoot: String = ""

    @Option(help: "The directory the files and index.txt are written under (for a static server or CDN).")
    var exportDir: String

    @Option(
        help: "The prefix of the mirrored files and of the names in the mirrored index.txt (default: --source-root).")
    var exportRoot: String?

    @Option(
        help: """
            Rename each mirrored file, as Google's mirror does: the pattern with [timestamp] (Unix seconds), [uuid] \
            and [test] replaced, e.g. `[timestamp]-[uuid].zip` (default: keep the source's names).
            """)
    var filenameRewrite: String?

    @Option(
        help: """
            A public key of the source, [VERSION=]PEM-FILE (repeat for several, e.g. during a rotation); a file no \
            signature of which verifies with one of them is refused. With VERSION, trusted for that key version only.
            """)
    var publicKey: [String] = []

    @Option(help: "Trust the --public-key keys only for this verification_key_id.")
    var keyID: String?

    @Option(help: "Mirror again every this long (e.g. 5m) until stopped; without it, mirror once and exit.")
    var interval: String?

    @Option(help: "The most bytes of the source's index.txt read (Google: 1 MiB).")
    var maxIndexBytes: Int = 1 << 20

    @Option(help: "The most bytes of one export file read (Google: 20 MiB).")
    var maxFileBytes: Int = 20 << 20

    /// The mirror the options describe.
    ///
    /// - Throws: ``EnserverFailure`` (exit 2) naming the option that is wrong.
    func mirror() throws(EnserverFailure) -> ENExportMirror {
        guard let url = URL(string: source) else {
            throw EnserverFailure("--source \(source): want an http or https URL such as https://keys.example.org")
        }
        guard !publicKey.isEmpty else {
            throw EnserverFailure("--public-key: give the source's public key (a PEM file) to verify its files")
        }
        var keys: [ENExportVerificationKey] = []
        for value in publicKey {
            var version: String?
            var path = value
            if let equals = value.firstIndex(of: "="), !value[..<equals].contains("/") {
                guard equals != value.startIndex else {
                    throw EnserverFailure("--public-key \(value): want [VERSION=]PEM-FILE")
                }
                version = String(value[..<equals])
                path = String(value[value.index(after: equals)...])
            }
            let key = try OptionFile.read(path, option: "--public-key", secret: false) { pem throws(ENError) in
                try P256VerifyingKey(pemRepresentation: pem)
            }
            keys.append(ENExportVerificationKey(keyID: keyID, keyVersion: version, publicKey: key))
        }
        guard maxIndexBytes > 0 else {
            throw EnserverFailure("--max-index-bytes \(maxIndexBytes): want 1 or more bytes")
        }
        guard maxFileBytes > 0 else { throw EnserverFailure("--max-file-bytes \(maxFileBytes): want 1 or more bytes") }
        var rewrite: ENMirrorFilenameRewrite?
        if let filenameRewrite {
            do { rewrite = try ENMirrorFilenameRewrite(pattern: filenameRewrite) } catch {
                throw EnserverFailure("--filename-rewrite \(filenameRewrite): \(error.reason)")
            }
        }
        do {
            var mirror = try ENExportMirror(
                source: url, sourceRoot: sourceRoot, directory: URL(fileURLWithPath: exportDir),
                exportRoot: exportRoot, filenameRewrite: rewrite, trustedKeys: keys)
            mirror.maximumIndexBytes = maxIndexBytes
            mirror.maximumFileBytes = maxFileBytes
            return mirror
        } catch {
            let option: [String: String] = [
                "source": "--source \(source)", "sourceRoot": "--source-root \(sourceRoot)",
                "exportRoot": "--export-root \(exportRoot ?? sourceRoot)", "trustedKeys": "--public-key",
            ]
            throw EnserverFailure("\(error.context.field.flatMap { option[$0] } ?? "enserver mirror"): \(error.reason)")
        }
    }

    func run() async throws {
        let mirror = try mirror()
        let every = try interval.map { text throws(EnserverFailure) in
            try OptionDuration.seconds(text, option: "--interval")
        }
        let logger = Logger(label: "enserver")
        guard let every else {
            let report: ENExportMirrorReport
            do { report = try await mirror.run() } catch { throw EnserverFailure("\(error)", exitCode: 1) }
            if report.skippedLocked {
                logger.warning("another enserver mirror holds \(exportDir): skipped")
            }
            for name in report.published { print(name) }
            for refusal in report.refused {
                FileHandle.standardError.write(Data("enserver: refused \(refusal.name): \(refusal.error)\n".utf8))
            }
            if !report.refused.isEmpty {
                throw EnserverFailure(
                    "\(report.refused.count) files refused; the next run tries them again", exitCode: 1)
            }
            return
        }
        while !Task.isCancelled {
            do {
                let report = try await mirror.run()
                if report.skippedLocked { logger.warning("another enserver mirror holds \(exportDir): skipped") }
                for refusal in report.refused { logger.error("refused \(refusal.name): \(refusal.error)") }
                if !report.published.isEmpty || !report.removed.isEmpty {
                    logger.info(
                        "mirrored",
                        metadata: [
                            "published": "\(report.published.count)", "removed": "\(report.removed.count)",
                            "listed": "\(report.listed.count)",
                        ])
                }
            } catch {
                logger.error("mirror failed: \(error)")
            }
            try? await Task.sleep(for: .seconds(every))
        }
    }
}
