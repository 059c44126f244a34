internal import ENCore
internal import Foundation

/// What a manager's last detection matched, kept in memory so that the next detection matches only what is new
/// to it, as a phone's framework need not derive again what it derived yesterday: the cached files' keys are
/// matched against the sightings recorded since (with keys far from those sightings skipped before any
/// cryptography), their earlier hits on the sightings still retained are taken from here, and the new files are
/// matched against every sighting. The result is the same as matching every key against every sighting.
///
/// The memo is a pure function's memory: it records, for each key file (by the SHA-256 of its `export.bin`),
/// which keys hit which sightings, among the sightings it was matched against. A hit depends only on the key and
/// the sighting's identifier and time, so nothing in the store can make it wrong; a file or a sighting the memo
/// does not know is matched in full. It holds no key that did not match, and sightings only as identifier and
/// time (their number is bounded by the retention period). A detection takes the memo and puts back the next one;
/// two detections at once find it taken once, and the other matches in full.
final class DetectionMemo: Sendable {
    /// A sighting as matching sees it: a hit depends on nothing else.
    struct Sighting: Hashable, Sendable {
        var rpi: RollingProximityIdentifier
        var timestamp: Date

        /// The identifier and time of `sighting`.
        init(_ sighting: ENSighting) {
            rpi = sighting.rpi
            timestamp = sighting.timestamp
        }
    }

    /// A key of a file that hit: its position among the file's key messages (revised keys first), the key, and
    /// its hits.
    struct Occurrence: Sendable {
        var position: Int
        var key: ENTemporaryExposureKey
        var hits: Set<Hit>
    }

    /// One hit of an ``Occurrence``.
    struct Hit: Hashable, Sendable {
        var sighting: Sighting
        var derivedInterval: ENIntervalNumber
    }

    /// What the last detection knew.
    struct State: Sendable {
        /// The sightings every file in ``files`` was matched against.
        var matched: Set<Sighting> = []
        /// Each file's keys that hit one of ``matched``, in position order.
        var files: [Data: [Occurrence]] = [:]
        /// Each file's reach: the sighting intervals its keys can match (`nil`: none), when known.
        var reach: [Data: ClosedRange<UInt32>?] = [:]
    }

    private let state = Locked<State?>(nil)

    /// Takes the memo (`nil` when there is none, or another detection holds it).
    func take() -> State? { state.withLock { $0.take() } }

    /// Puts back the memo of a finished detection.
    func put(_ new: State) { state.withLock { $0 = new } }
}
