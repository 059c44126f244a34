internal import CENMatchingKernel
internal import ENCore
internal import Foundation

/// Direct access to one kernel's derivation, for the tests that prove every kernel bit-exact.
struct KernelDerivation: ~Copyable {
    private let worker: OpaquePointer

    init(kernel: ENMatchingKernel) throws(ENError) {
        guard kernel.isSupported else { throw .unsupported("the matching kernel \(kernel) is not supported") }
        guard let worker = cen_worker_create(Int32(kernel.rawValue)) else {
            throw .internal("could not create a \(kernel) worker")
        }
        self.worker = worker
    }

    deinit { cen_worker_destroy(worker) }

    /// The RPIKs of the given 16-byte keys, each 16 bytes.
    func rollingProximityIdentifierKeys(_ keys: [Data]) -> [Data] {
        var input = [UInt8]()
        for key in keys { input.append(contentsOf: key) }
        var output = [UInt8](repeating: 0, count: input.count)
        _ = cen_worker_derive_rpiks(worker, input, keys.count, &output)
        return (0..<keys.count).map { Data(output[(16 * $0)..<(16 * $0 + 16)]) }
    }

    /// `count` (at most 144) identifiers from `start` under a 16-byte RPIK.
    func identifiers(rollingProximityIdentifierKey rpik: Data, startingAt start: UInt32, count: Int) -> [Data] {
        var output = [UInt8](repeating: 0, count: 16 * count)
        let key = [UInt8](rpik)
        _ = cen_worker_derive_rpis(worker, key, start, UInt32(count), &output)
        return (0..<count).map { Data(output[(16 * $0)..<(16 * $0 + 16)]) }
    }
}
