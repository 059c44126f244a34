internal import ENCore
internal import ENExportFormat
internal import Foundation

/// One key file handed to `detectExposures`: a zip holding `export.bin` and `export.sig`, or the bare layout
/// that Apple's sample code and many servers write, an `export.bin`-style file and its signature passed as two
/// URLs with the same base name (`a.bin` and `a.sig`).
struct DiagnosisKeyFile: Sendable {
    enum Layout: Sendable {
        case zip(URL)
        case pair(binary: URL, signature: URL)
    }

    let layout: Layout

    /// The path errors name: the zip's, or the `.bin`'s.
    var path: String {
        switch layout {
        case .zip(let url): url.path
        case .pair(let binary, _): binary.path
        }
    }

    /// Groups the URLs into files: `.bin` and `.sig` (any case) by base name, anything else as a zip. The same
    /// URL given twice is one file; the order of the first appearance is kept.
    ///
    /// - Throws: `ENError.Code.badParameter` naming a `.bin` without its `.sig`, or a `.sig` without its `.bin`.
    static func group(_ urls: [URL]) throws(ENError) -> [DiagnosisKeyFile] {
        var files: [DiagnosisKeyFile] = []
        var seen = Set<String>()
        var binaries: [String: URL] = [:]
        var signatures: [String: URL] = [:]
        var pairOrder: [String] = []
        for url in urls {
            let url = url.standardizedFileURL
            guard seen.insert(url.path).inserted else { continue }
            let base = url.deletingPathExtension().path
            switch url.pathExtension.lowercased() {
            case "bin":
                if binaries[base] == nil, signatures[base] == nil { pairOrder.append(base) }
                binaries[base] = url
            case "sig":
                if binaries[base] == nil, signatures[base] == nil { pairOrder.append(base) }
                signatures[base] = url
            default:
                files.append(DiagnosisKeyFile(layout: .zip(url)))
            }
        }
        for base in pairOrder {
            switch (binaries[base], signatures[base]) {
            case (let binary?, let signature?):
                files.append(DiagnosisKeyFile(layout: .pair(binary: binary, signature: signature)))
            case (let binary?, nil):
                throw .badParameter(
                    "\(binary.lastPathComponent) has no \(binary.deletingPathExtension().lastPathComponent).sig "
                        + "among the URLs", context: ENError.Context(file: binary.path))
            case (nil, let signature?):
                throw .badParameter(
                    "\(signature.lastPathComponent) has no "
                        + "\(signature.deletingPathExtension().lastPathComponent).bin among the URLs",
                    context: ENError.Context(file: signature.path))
            case (nil, nil):
                continue
            }
        }
        return files
    }

    /// Reads the file.
    ///
    /// - Throws: the reader's `ENError` (`badParameter` when it cannot be read, `badFormat` when it is no
    ///   export file or breaks a limit), with the file's path in its context.
    func archive(limits: ENExportLimits, shared: ENSharedArchives? = nil) throws(ENError) -> ENExportArchive {
        do throws(ENError) {
            switch layout {
            case .zip(let url):
                guard let shared else { return try ENExportArchive(contentsOf: url, limits: limits) }
                return try shared.archive(of: try ENExportArchive.readFile(at: url, limits: limits), limits: limits)
            case .pair(let binary, let signature):
                let bin = try Self.read(binary, limit: limits.maximumExportBinarySize)
                let sig = try Self.read(signature, limit: limits.maximumSignatureFileSize)
                return try ENExportArchive(data: bin, limits: limits).with(signatureFile: sig)
            }
        } catch {
            throw error.adding(ENError.Context(file: path))
        }
    }

    private static func read(_ url: URL, limit: Int) throws(ENError) -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .badParameter("cannot read the file: \(error.localizedDescription)", context: .init(file: url.path))
        }
        guard data.count <= limit else {
            throw .badFormat(
                "the file is \(data.count) bytes, over the limit of \(limit)", context: .init(file: url.path))
        }
        return data
    }
}

extension ENExportArchive {
    fileprivate func with(signatureFile: Data) -> ENExportArchive {
        ENExportArchive(exportBinary: exportBinary, signatureFile: signatureFile)
    }
}
