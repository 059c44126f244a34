public import Foundation

/// Headless Chromium as the tests' browser: it opens an HTML page the package wrote, as a person's browser would,
/// and hands back the document it built (`--dump-dom`), or a screenshot.
///
/// `Scripts/setup.sh` installs it (Debian's `chromium`). A test that needs it calls ``init()``, which throws
/// ``NotInstalled`` when neither `chromium` nor `chromium-browser` is on `PATH`: the test fails with that message
/// rather than passing without a browser.
public struct HeadlessChromium: Sendable {
    /// No Chromium on `PATH`.
    public struct NotInstalled: Error, CustomStringConvertible {
        public var description: String {
            "headless Chromium is not installed: neither chromium nor chromium-browser is on PATH "
                + "(Scripts/setup.sh installs Debian's chromium)"
        }
    }

    /// Chromium failed to render a page.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, with Chromium's standard error.
        public var description: String
    }

    /// The browser's executable.
    public let path: String

    /// The first of `chromium` and `chromium-browser` on `PATH`.
    ///
    /// - Throws: ``NotInstalled`` when there is neither.
    public init() throws {
        guard let path = [ExternalTool("chromium"), ExternalTool("chromium-browser")].compactMap(\.path).first else {
            throw NotInstalled()
        }
        self.path = path
    }

    /// The document Chromium builds from the page at `file` (its DOM serialized as HTML), with scripts off the
    /// network: `--headless --no-sandbox --disable-gpu --dump-dom`, a fresh profile, killed after `timeout`.
    ///
    /// - Throws: ``Failure`` when Chromium exits with an error, runs past `timeout`, or prints no document.
    public func dumpDOM(of file: URL, timeout: Duration = .seconds(120)) throws -> String {
        let output = try render(file, ["--dump-dom"], timeout: timeout)
        let dom = String(decoding: output, as: UTF8.self)
        guard dom.contains("<html") else { throw Failure(description: "Chromium printed no document for \(file.path)") }
        return dom
    }

    /// A PNG screenshot of the page at `file`, `width` × `height` pixels, written to `png`.
    ///
    /// - Throws: ``Failure`` when Chromium fails or writes no file.
    public func screenshot(of file: URL, to png: URL, width: Int = 1280, height: Int = 2000) throws {
        _ = try render(file, ["--screenshot=\(png.path)", "--window-size=\(width),\(height)", "--hide-scrollbars"])
        guard FileManager.default.fileExists(atPath: png.path) else {
            throw Failure(description: "Chromium wrote no screenshot of \(file.path)")
        }
    }

    private func render(_ file: URL, _ arguments: [String], timeout: Duration = .seconds(120)) throws -> Data {
        let profile = try TemporaryDirectory(prefix: "chromium")
        defer { profile.cleanUp() }
        let outcome = try ChildProcess.run(
            path,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--user-data-dir=\(profile.url.path)",
            ] + arguments + [file.absoluteURL.absoluteString], timeout: timeout)
        guard !outcome.timedOut, outcome.status == 0 else {
            throw Failure(
                description: "chromium on \(file.path): "
                    + (outcome.timedOut ? "still running after \(timeout)" : "\(outcome.termination)") + "; "
                    + String(decoding: outcome.standardError.suffix(2000), as: UTF8.self))
        }
        return outcome.standardOutput
    }
}

extension HeadlessChromium {
    /// What in `html` would make a browser load something from elsewhere: a `src`, `href` or `xlink:href` naming
    /// an `http:`, `https:` or protocol-relative (`//`) address, a CSS `url(...)` or `@import` of one, a `<link>`
    /// or a `<script src>`. Empty for a self-contained page. (An `xmlns` namespace is a name, not a load.)
    public static func externalReferences(in html: String) -> [String] {
        let lowered = html.lowercased()
        var found: [String] = []
        for attribute in ["src", "href", "xlink:href"] {
            for quote in ["\"", "'", ""] {
                for scheme in ["http:", "https:", "//"] {
                    let needle = "\(attribute)=\(quote)\(scheme)"
                    if lowered.contains(" \(needle)") { found.append(needle) }
                }
            }
        }
        for needle in ["url(http", "url(//", "url(\"http", "url('http", "@import", "<link", "<script src"]
        where lowered.contains(needle) {
            found.append(needle)
        }
        return found
    }
}
