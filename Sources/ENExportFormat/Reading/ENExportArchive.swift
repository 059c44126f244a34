public import ENCore
public import Foundation

/// A diagnosis-key export file as it travels: `export.bin` plus `export.sig`, normally zipped together.
///
/// Reading accepts a zip archive or a bare `export.bin` (then ``signatureFile`` is `nil`). A zip must hold
/// exactly two entries at its root, `<name>.bin` and `<name>.sig` with the same base name (Apple's rule;
/// Google's is the stricter `export.bin` / `export.sig`, which is what this package writes). Any other
/// entry, a directory, a missing `.bin` or `.sig`, or a size over ``ENExportLimits`` is refused before
/// anything is inflated, and inflation stops as soon as it passes the declared size or the limit.
///
/// ```swift
/// let archive = try ENExportArchive(contentsOf: url)
/// let export = try archive.keyExport()
/// let result = try verifier.verify(archive)
/// ```
public struct ENExportArchive: Hashable, Sendable {
    /// The `export.bin` bytes: the 16-byte header and the `TemporaryExposureKeyExport` message.
    public var exportBinary: Data
    /// The `export.sig` bytes (a `TEKSignatureList` message), or `nil` for a bare `export.bin`.
    public var signatureFile: Data?

    /// Wraps the two files' bytes. Nothing is checked until they are decoded.
    public init(exportBinary: Data, signatureFile: Data?) {
        self.exportBinary = exportBinary
        self.signatureFile = signatureFile
    }

    /// Reads a zip archive or a bare `export.bin` from memory.
    ///
    /// - Throws: `ENError.Code.badFormat` naming what is wrong: not a zip and no export header,
    ///   a missing or extra entry, a size over `limits`, a corrupt zip. The error's context names the zip entry
    ///   (section `export.bin`, `export.sig`) when the problem is in one.
    public init(data: Data, limits: ENExportLimits = .default) throws(ENError) {
        guard data.count <= limits.maximumFileSize else {
            throw .badFormat("the file is \(data.count) bytes, over the limit of \(limits.maximumFileSize)")
        }
        if ZipContainer.looksLikeZip(data) {
            let (bin, sig) = try ZipContainer.read(data, limits: limits)
            self.init(exportBinary: bin, signatureFile: sig)
        } else {
            try ENKeyExport.checkHeader(data)
            guard data.count <= limits.maximumExportBinarySize else {
                throw .badFormat(
                    "\(data.count) bytes, over the limit of \(limits.maximumExportBinarySize)",
                    context: .init(section: "export.bin"))
            }
            self.init(exportBinary: data, signatureFile: nil)
        }
    }

    /// Reads a zip archive or a bare `export.bin` from a file, reading at most one byte more than the limit.
    ///
    /// - Throws: `ENError.Code.badParameter` when the file cannot be read, otherwise as
    ///   ``init(data:limits:)``; every error's context has the file's path (`file`).
    public init(contentsOf url: URL, limits: ENExportLimits = .default) throws(ENError) {
        let data = try Self.readFile(at: url, limits: limits)
        do {
            try self.init(data: data, limits: limits)
        } catch {
            throw error.adding(ENError.Context(file: url.path))
        }
    }

    /// The bytes of the file at `url`, read with one open and at most one byte more than
    /// `limits.maximumFileSize` (no separate size check that the file could outgrow).
    ///
    /// - Throws: `ENError.Code.badParameter` when the file cannot be read, `ENError.Code.badFormat` when it is over
    ///   the limit; the context has the file's path.
    package static func readFile(at url: URL, limits: ENExportLimits) throws(ENError) -> Data {
        let file = ENError.Context(file: url.path)
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: limits.maximumFileSize + 1) ?? Data()
        } catch {
            throw .badParameter("cannot read the file: \(error.localizedDescription)", context: file)
        }
        guard data.count <= limits.maximumFileSize else {
            throw .badFormat("the file is over the limit of \(limits.maximumFileSize) bytes", context: file)
        }
        return data
    }

    /// Decodes the whole of `export.bin` (``ENKeyExport/init(exportBinary:limits:)``).
    ///
    /// - Throws: `ENError.Code.badFormat` naming the field or key that is wrong.
    public func keyExport(limits: ENExportLimits = .default) throws(ENError) -> ENKeyExport {
        try ENKeyExport(exportBinary: exportBinary, limits: limits)
    }

    /// A scanner that reads the keys of `export.bin` in chunks.
    public func keyScanner(limits: ENExportLimits = .default) throws(ENError) -> ENExportKeyScanner {
        try ENExportKeyScanner(exportBinary: exportBinary, limits: limits)
    }

    /// Decodes `export.sig`; an empty list when there is no signature file.
    ///
    /// - Throws: `ENError.Code.badFormat` when `export.sig` is not a valid `TEKSignatureList`.
    public func signatures() throws(ENError) -> [ENExportSignature] {
        guard let signatureFile else { return [] }
        return try ENExportSignature.decodeList(signatureFile)
    }

    /// The zip archive: `export.bin` then `export.sig`, both DEFLATE-compressed.
    ///
    /// - Throws: `ENError.Code.badParameter` when there is no signature file to write.
    public func zipData() throws(ENError) -> Data {
        guard let signatureFile else {
            throw .badParameter("an export archive needs export.sig; this one has only export.bin")
        }
        return try ZipContainer.write(exportBinary: exportBinary, signatureFile: signatureFile)
    }

    /// Writes the zip archive to `url` atomically (a temporary file, then a rename).
    public func write(to url: URL) throws(ENError) {
        let data = try zipData()
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw .badParameter(
                "cannot write the file: \(error.localizedDescription)", context: .init(file: url.path))
        }
    }
}
