internal import CENMatchingKernel
package import ENCore
package import Foundation

/// Direct access to one matching kernel's key schedule (the C path): RPIKs for a batch of keys, and a day of
/// identifiers under one RPIK.
///
/// For the tests that prove every kernel bit-exact and for the crypto benchmarks; matching itself goes through
/// ``ENMatcher``. One value per thread.
package struct KernelDerivation: ~Copyable {
    private let worker: OpaquePointer

    /// A derivation on `kernel`.
    ///
    /// - Throws: `ENError.Code.unsupported` when the CPU cannot run the kernel, `ENError.Code.internal` when
    ///   the worker cannot be created (out of memory, or OpenSSL failed).
    package init(kernel: ENMatchingKernel) throws(ENError) {
        guard kernel.isSupported else { throw .unsupported("the matching kernel \(kernel) is not supported") }
        guard let worker = cen_worker_create(Int32(kernel.rawValue)) else {
            throw .internal("could not create a \(kernel) worker")
        }
        self.worker = worker
    }

    deinit { cen_worker_destroy(worker) }

    /// Writes the 16-byte RPIK of each 16-byte key in `keyData` to `rpiks` (the same length).
    ///
    /// - Throws: `ENError.Code.badParameter` when the lengths are not equal multiples of 16,
    ///   `ENError.Code.internal` when OpenSSL fails (portable kernel).
    package func deriveRollingProximityIdentifierKeys(
        keyData: UnsafeRawBufferPointer, into rpiks: UnsafeMutableRawBufferPointer
    ) throws(ENError) {
        guard keyData.count % 16 == 0, rpiks.count == keyData.count else {
            throw .badParameter(
                "key data and RPIKs must be equal multiples of 16 bytes, got \(keyData.count) and \(rpiks.count)")
        }
        guard keyData.count > 0 else { return }
        let status = cen_worker_derive_rpiks(
            worker, keyData.baseAddress!.assumingMemoryBound(to: UInt8.self), keyData.count / 16,
            rpiks.baseAddress!.assumingMemoryBound(to: UInt8.self))
        guard status == 0 else { throw .internal("the matching kernel failed to derive RPIKs (OpenSSL)") }
    }

    /// Writes the identifiers of `count` (at most 144) consecutive intervals from `start` under the 16-byte
    /// `rpik` to `identifiers` (16 bytes each).
    ///
    /// - Throws: `ENError.Code.badParameter` for a count outside 0...144 or wrong buffer sizes,
    ///   `ENError.Code.internal` when OpenSSL fails (portable kernel).
    package func deriveIdentifiers(
        rollingProximityIdentifierKey rpik: UnsafeRawBufferPointer, startingAt start: UInt32, count: Int,
        into identifiers: UnsafeMutableRawBufferPointer
    ) throws(ENError) {
        guard rpik.count == 16 else { throw .badParameter("an RPIK is 16 bytes, got \(rpik.count)") }
        guard (0...144).contains(count) else { throw .badParameter("identifier count must be 0...144, got \(count)") }
        guard identifiers.count >= 16 * count else {
            throw .badParameter("\(count) identifiers need \(16 * count) bytes, got \(identifiers.count)")
        }
        guard count > 0 else { return }
        let status = cen_worker_derive_rpis(
            worker, rpik.baseAddress!.assumingMemoryBound(to: UInt8.self), start, UInt32(count),
            identifiers.baseAddress!.assumingMemoryBound(to: UInt8.self))
        guard status == 0 else { throw .internal("the matching kernel failed to derive identifiers (OpenSSL)") }
    }

    /// The RPIKs of the given 16-byte keys, each 16 bytes.
    package func rollingProximityIdentifierKeys(_ keys: [Data]) throws(ENError) -> [Data] {
        var input = Data()
        for key in keys {
            guard key.count == 16 else { throw .badParameter("key data must be 16 bytes, got \(key.count)") }
            input.append(key)
        }
        var output = Data(count: input.count)
        try input.withBytes { keyData throws(ENError) in
            try output.withMutableBytes { rpiks throws(ENError) in
                try deriveRollingProximityIdentifierKeys(keyData: keyData, into: rpiks)
            }
        }
        return (0..<keys.count).map { Data(output[(16 * $0)..<(16 * $0 + 16)]) }
    }

    /// `count` (at most 144) identifiers from `start` under a 16-byte RPIK.
    package func identifiers(rollingProximityIdentifierKey rpik: Data, startingAt start: UInt32, count: Int)
        throws(ENError) -> [Data]
    {
        var output = Data(count: 16 * max(count, 0))
        try rpik.withBytes { key throws(ENError) in
            try output.withMutableBytes { identifiers throws(ENError) in
                try deriveIdentifiers(
                    rollingProximityIdentifierKey: key, startingAt: start, count: count, into: identifiers)
            }
        }
        return (0..<count).map { Data(output[(16 * $0)..<(16 * $0 + 16)]) }
    }
}
