internal import ENCore
internal import ENCrypto
package import ENExportFormat
package import Foundation

/// The key-file archives many managers of a process have read (a simulated town, whose phones all download the
/// same files), by the SHA-256 of the zip's bytes: a phone that downloads the same bytes gets the archive already
/// read (`export.bin` and `export.sig` out of the zip) instead of unzipping it again.
///
/// Reading a zip is a function of its bytes and the limits, so the archive is the one the phone would read;
/// only archives read under the default limits and without error are kept, the last ``capacity`` of them. The
/// phone still reads its file and verifies the signature (and a damaged file is refused as before: its bytes hash
/// to nothing kept).
package final class ENSharedArchives: Sendable {
    /// How many archives are kept: 32, the oldest dropped first.
    package static let capacity = 32

    private struct State {
        var archives: [Data: ENExportArchive] = [:]
        var order: [Data] = []
    }

    private let state = Locked(State())

    /// An empty set.
    package init() {}

    /// How many archives are kept.
    package var count: Int { state.withLock { $0.archives.count } }

    /// The archive `data` holds, read as `ENExportArchive(data:limits:)` reads it.
    ///
    /// - Throws: as `ENExportArchive(data:limits:)`.
    package func archive(of data: Data, limits: ENExportLimits) throws(ENError) -> ENExportArchive {
        guard limits == .default else { return try ENExportArchive(data: data, limits: limits) }
        let hash = SHA256.hash(data)
        if let kept = state.withLock({ $0.archives[hash] }) { return kept }
        let archive = try ENExportArchive(data: data, limits: limits)
        state.withLock { state in
            guard state.archives[hash] == nil else { return }
            state.archives[hash] = archive
            state.order.append(hash)
            if state.order.count > Self.capacity { state.archives[state.order.removeFirst()] = nil }
        }
        return archive
    }
}
