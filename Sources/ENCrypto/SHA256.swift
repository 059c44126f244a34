internal import CLibCrypto
public import Foundation

/// SHA-256, one-shot or incremental.
///
/// ```swift
/// let digest = SHA256.hash(data)            // 32 bytes
/// var hasher = SHA256()
/// hasher.update(part1); hasher.update(part2)
/// let same = hasher.finalize()
/// ```
///
/// A value copied mid-stream continues independently (the OpenSSL context is copied on write).
public struct SHA256: Sendable {
    private var box: DigestContextBox

    /// The digest length: 32 bytes.
    public static let byteCount = 32

    /// A new hasher. Allocation failure in OpenSSL (memory exhaustion) stops the process, as a failed
    /// allocation does elsewhere in Swift.
    public init() {
        box = DigestContextBox()
    }

    /// Adds bytes to the hash.
    public mutating func update(_ data: some DataProtocol) {
        if !isKnownUniquelyReferenced(&box) { box = box.copy() }
        for region in data.regions {
            region.withUnsafeBytes { box.update($0) }
        }
    }

    /// Adds bytes to the hash.
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        if !isKnownUniquelyReferenced(&box) { box = box.copy() }
        box.update(bufferPointer)
    }

    /// The digest of everything added. The hasher is left unchanged (finalisation works on a copy).
    public func finalize() -> Data {
        box.copy().finalize()
    }

    /// The SHA-256 digest of `data`.
    public static func hash(_ data: some DataProtocol) -> Data {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }
}

/// Owns an `EVP_MD_CTX`. `@unchecked Sendable`: only ever mutated through a uniquely referenced ``SHA256``.
final class DigestContextBox: @unchecked Sendable {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.context = context
        let md = (try? FetchedAlgorithms.shared().sha256) ?? EVP_sha256()
        guard EVP_DigestInit_ex2(context, md, nil) == 1 else { fatalError("EVP_DigestInit_ex2 failed for SHA-256") }
    }

    private init(copying other: DigestContextBox) {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.context = context
        guard EVP_MD_CTX_copy_ex(context, other.context) == 1 else { fatalError("EVP_MD_CTX_copy_ex failed") }
    }

    deinit { EVP_MD_CTX_free(context) }

    func copy() -> DigestContextBox { DigestContextBox(copying: self) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    func finalize() -> Data {
        var digest = Data(count: SHA256.byteCount)
        var length: UInt32 = 0
        _ = digest.withUnsafeMutableBytes {
            EVP_DigestFinal_ex(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
        }
        return digest
    }
}
