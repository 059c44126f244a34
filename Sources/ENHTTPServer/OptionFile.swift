import ENCore
import Foundation

/// The files a server's options name (keys, certificates, passwords, secrets), read with a bound and, for secrets,
/// only when no one but their owner may read them.
package enum OptionFile {
    /// The most bytes read from such a file.
    package static let maximumByteCount = 1 << 20

    /// The UTF-8 text of the file at `path`, which `option` named.
    ///
    /// A `secret` file (a private key, a password, token keys, an HMAC secret) is refused when its group or others
    /// may read it. A file over `maximumBytes` is refused, not read.
    ///
    /// - Throws: ``ServerFailure`` (exit 2) naming `option` and `path`.
    package static func text(
        _ path: String, option: String, secret: Bool = true, maximumBytes: Int = maximumByteCount
    ) throws(ServerFailure) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw ServerFailure("\(option) \(path): cannot read the file: \(String(cString: strerror(errno)))")
        }
        if secret, status.st_mode & 0o077 != 0 {
            throw ServerFailure(
                "\(option) \(path): the file may be read by its group or others (mode "
                    + "\(String(status.st_mode & 0o777, radix: 8))): make it readable by its owner only (chmod 600)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ServerFailure("\(option) \(path): cannot read the file")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            throw ServerFailure("\(option) \(path): cannot read the file: \(error.localizedDescription)")
        }
        guard data.count <= maximumBytes else {
            throw ServerFailure("\(option) \(path): the file is longer than \(maximumBytes) bytes")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ServerFailure("\(option) \(path): not UTF-8 text")
        }
        return text
    }

    /// The file at `path`, read as ``text(_:option:secret:maximumBytes:)`` reads it, then parsed by `parse`.
    ///
    /// - Throws: ``ServerFailure`` (exit 2) naming `option` and `path`, with the reason `parse` gave (an
    ///   `ENError`'s reason).
    package static func read<Value>(
        _ path: String, option: String, secret: Bool = true, _ parse: (String) throws -> Value
    ) throws(ServerFailure) -> Value {
        let text = try text(path, option: option, secret: secret)
        do {
            return try parse(text)
        } catch let error as ENError {
            throw ServerFailure("\(option) \(path): \(error.reason)")
        } catch {
            throw ServerFailure("\(option) \(path): \(error)")
        }
    }
}
