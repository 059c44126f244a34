internal import CLibCrypto

/// Immutable heap storage for key material (shared with the package's modules that hold keys for long, such as
/// the facade's broadcaster) that is overwritten with zeros (`OPENSSL_cleanse`) when released.
///
/// `@unchecked Sendable`: the bytes are written once in `init` and only read afterwards, and the buffer is
/// freed exactly once, in `deinit`.
package final class SecureBytes: @unchecked Sendable {
    private let buffer: UnsafeMutableRawBufferPointer

    /// Copies `count` bytes from `source`.
    package init(copying source: UnsafeRawBufferPointer) {
        buffer = .allocate(byteCount: max(source.count, 1), alignment: 16)
        if let base = source.baseAddress, source.count > 0 {
            buffer.baseAddress!.copyMemory(from: base, byteCount: source.count)
        }
        count = source.count
    }

    /// Allocates `count` bytes and lets `initializer` fill them.
    package init(count: Int, _ initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        buffer = .allocate(byteCount: max(count, 1), alignment: 16)
        self.count = count
        do {
            try initializer(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch {
            OPENSSL_cleanse(buffer.baseAddress, buffer.count)
            buffer.deallocate()
            throw error
        }
    }

    /// The number of bytes.
    package let count: Int

    deinit {
        OPENSSL_cleanse(buffer.baseAddress, buffer.count)
        buffer.deallocate()
    }

    /// Calls `body` with the bytes. The pointer must not escape.
    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }

    /// Constant-time equality of the contents.
    package func isEqual(to other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { a in
            other.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, count) == 0 }
        }
    }
}
