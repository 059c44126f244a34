internal import CENMatchingKernel
internal import ENCore

/// One C worker per thread: scratch buffers, the portable kernel's OpenSSL context, and the hits found.
/// Each worker is used by one thread at a time (the pool hands worker i to participant i).
final class KernelWorkers: @unchecked Sendable {
    let workers: [OpaquePointer]
    let kernel: ENMatchingKernel

    init(kernel: ENMatchingKernel, count: Int, genericLoop: Bool = false) throws(ENError) {
        guard kernel.isSupported else {
            throw .unsupported("the matching kernel \(kernel) is not supported by this CPU")
        }
        var created: [OpaquePointer] = []
        for _ in 0..<max(1, count) {
            guard let worker = cen_worker_create(Int32(kernel.rawValue)) else {
                created.forEach { cen_worker_destroy($0) }
                throw .internal("could not create a \(kernel) matching worker (out of memory or OpenSSL failed)")
            }
            cen_worker_use_generic_loop(worker, genericLoop ? 1 : 0)
            created.append(worker)
        }
        self.workers = created
        self.kernel = kernel
    }

    deinit { workers.forEach { cen_worker_destroy($0) } }

    /// Keys derived by all workers so far.
    var keysDerived: Int { workers.reduce(0) { $0 + Int(cen_worker_keys_derived($1)) } }

    /// Identifiers derived by all workers so far.
    var identifiersDerived: Int { workers.reduce(0) { $0 + Int(cen_worker_identifiers_derived($1)) } }
}
