internal import ENCore
internal import ENStore
internal import Foundation

extension FuzzTarget {
    /// A fixed moment, so that retention on open does not depend on the day the fuzzer runs.
    static let storeClock = Date(timeIntervalSince1970: 1_600_000_000)

    /// Where the store files go: memory-backed `/dev/shm` when the system has it, so that the 1 s timeout measures
    /// the package's work and not a stall of the disk (`fsync` after a long write elsewhere on the machine took a
    /// CI run's 0.1 s input past it); the temporary directory otherwise.
    static let storeScratch: URL = {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        return FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
    }()

    static func fuzzStore(_ input: Data) throws(FuzzViolation) {
        let directory =
            storeScratch
            .appendingPathComponent("enfuzz-store-\(getpid())-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("store.sqlite")

        try write(input, to: file)
        let clock = storeClock
        do {
            let store = try ENDeviceStore(path: file.path, configuration: ENStoreConfiguration(now: { clock }))
            probe { () throws(ENError) in _ = try store.read(.managerState) }
            probe { () throws(ENError) in _ = try store.read(.ownKeys) }
            probe { () throws(ENError) in _ = try store.read(.retainedSightings) }
            probe { () throws(ENError) in _ = try store.read(.recordCounts) }
            probe { () throws(ENError) in
                // Each cached key file's contents: beside the database (none here) or in its table.
                for hash in try store.read(.cachedKeyFileHashes).prefix(4) { _ = try store.read(.cachedKeyFile(hash)) }
            }
            probe { () throws(ENError) in _ = try store.read(.rateLimitLedger(since: .distantPast)) }
            probe { () throws(ENError) in try store.checkIntegrity() }
            try? store.close()
        } catch {
            try checkUnchanged(file, input, "ENDeviceStore")
        }
    }

    /// Runs a query whose refusal is an accepted outcome: only a crash or a hang would be a finding.
    private static func probe(_ query: () throws(ENError) -> Void) {
        do { try query() } catch {}
    }

    private static func write(_ input: Data, to file: URL) throws(FuzzViolation) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: file.path + suffix)
        }
        do {
            try input.write(to: file)
        } catch {
            throw FuzzViolation(.store, "cannot write the input file: \(error)")
        }
    }

    /// A store that refused to open left the file as it was.
    private static func checkUnchanged(_ file: URL, _ input: Data, _ store: String) throws(FuzzViolation) {
        guard let after = try? Data(contentsOf: file), after == input else {
            throw FuzzViolation(.store, "\(store) refused the file but changed it")
        }
    }
}
