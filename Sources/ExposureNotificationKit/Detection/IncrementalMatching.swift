internal import ENCore
internal import ENMatching
internal import ENStore
internal import Foundation

/// One detection's matching with a ``DetectionMemo``: the occurrences of every source by file and position, from
/// the run over every sighting (new files, and cached files the memo does not know), from the memo (its hits on
/// sightings still retained) and from a run of the memo's files over the sightings new to it; then the rules of
/// ENMatching applied once, in the detection's order of sources, on the matcher's sightings.
///
/// Used on one thread.
final class IncrementalMatching {
    private typealias Sighting = DetectionMemo.Sighting
    private typealias Hit = DetectionMemo.Hit

    private let matcher: ENMatcher
    /// The sources' hashes in the order matching reads them (the newest file first).
    private let order: [Data]
    private let oldest: ENIntervalNumber
    private let previous: DetectionMemo.State
    /// The matcher's sightings as the memo knows them.
    private let current: [Sighting]
    /// Where each of those is in the matcher's sightings.
    private let indices: [Sighting: [Int]]
    /// Each source's occurrences so far, by position.
    private var files: [Data: [Int: DetectionMemo.Occurrence]] = [:]
    /// The reach of the sources known so far (see `DetectionMemo.State.reach`).
    private var reach: [Data: ClosedRange<UInt32>?] = [:]

    /// A detection matching `order`'s sources on `matcher`, keys that ended by `oldest` left out.
    init(matcher: ENMatcher, order: [Data], oldest: ENIntervalNumber, previous: DetectionMemo.State) throws(ENError) {
        self.matcher = matcher
        self.order = order
        self.oldest = oldest
        self.previous = previous
        current = matcher.sightings.map(Sighting.init)
        var indices: [Sighting: [Int]] = [:]
        for (index, sighting) in current.enumerated() { indices[sighting, default: []].append(index) }
        self.indices = indices
        for hash in order {
            files[hash] = [:]
            if let known = previous.reach[hash] { reach[hash] = .some(known) }
        }
    }

    /// Adds the reach of sources measured while they were read (`KeyChunks.reach`).
    func addReach(_ measured: [Data: ClosedRange<UInt32>?]) {
        for (hash, value) in measured where files[hash] != nil { reach[hash] = .some(value) }
    }

    /// Adds the occurrences of a run on the matcher (every sighting), located in their sources by `chunks`.
    func add(_ occurrences: [ENMatchOccurrence], locatedBy chunks: KeyChunks) throws(ENError) {
        for occurrence in occurrences {
            let (hash, position) = chunks.locate(occurrence.ordinal)
            try record(
                hash, position, occurrence.key,
                occurrence.hits.map { Hit(sighting: current[$0.sightingIndex], derivedInterval: $0.derivedInterval) })
        }
    }

    /// Adds the cached files the memo knows (`hashes`): their hits on the sightings still retained from the memo
    /// (keys that ended by `oldest` left out), and their hits on the sightings new to the memo by matching them
    /// against those alone.
    ///
    /// - Throws: as `ENMatcher` and reading a cached file throw.
    func addKnownFiles(
        _ hashes: [Data], store: ENDeviceStore, options: ENMatchingOptions, sharing shared: ENSharedIdentifiers? = nil
    ) throws(ENError) {
        guard !hashes.isEmpty else { return }
        for hash in hashes {
            for occurrence in previous.files[hash] ?? []
            where ExposureDetector.isRetained(occurrence.key, oldest: oldest) {
                let hits = occurrence.hits.filter { indices[$0.sighting] != nil }
                if !hits.isEmpty { try record(hash, occurrence.position, occurrence.key, hits) }
            }
        }
        let fresh = matcher.sightings.filter { !previous.matched.contains(Sighting($0)) }
        guard let first = fresh.map(\.interval).min(), let last = fresh.map(\.interval).max() else { return }
        // A file none of whose keys can reach the new sightings' intervals gives no occurrence: it is not read. (Its
        // revoked keys, too, cancel only through occurrences.)
        let reachable = hashes.filter { hash in
            guard let known = reach[hash] else { return true }
            guard let intervals = known else { return false }
            return intervals.overlaps(first...last)
        }
        guard !reachable.isEmpty else { return }
        let newcomers = try ENMatcher(sightings: fresh)
        let chunks = KeyChunks(sources: reachable.map { .cached($0) }, store: store, oldest: oldest)
        let found =
            if let shared {
                try chunks.occurrences(of: newcomers, sharing: shared)
            } else {
                try newcomers.occurrences(encodedChunks: chunks, options: options)
            }
        try chunks.checkRead()
        for occurrence in found {
            let (hash, position) = chunks.locate(occurrence.ordinal)
            try record(
                hash, position, occurrence.key,
                occurrence.hits.map {
                    Hit(sighting: Sighting(fresh[$0.sightingIndex]), derivedInterval: $0.derivedInterval)
                })
        }
    }

    private func record(
        _ hash: Data, _ position: Int, _ key: ENTemporaryExposureKey, _ hits: some Sequence<Hit>
    ) throws(ENError) {
        guard files[hash] != nil else { throw .internal("a matched key came from a file the detection did not read") }
        files[hash]![position, default: DetectionMemo.Occurrence(position: position, key: key, hits: [])].hits
            .formUnion(hits)
    }

    /// The matches: every occurrence in the order of the sources, then of positions, each hit on every sighting
    /// of the matcher with its identifier and time, under ENMatching's rules.
    func matches() throws(ENError) -> [ENKeyMatch] {
        var all: [ENMatchOccurrence] = []
        for (index, hash) in order.enumerated() {
            for (position, occurrence) in files[hash] ?? [:] {
                var hits: [ENMatchOccurrence.Hit] = []
                for hit in occurrence.hits {
                    for sightingIndex in indices[hit.sighting] ?? [] {
                        hits.append(.init(sightingIndex: sightingIndex, derivedInterval: hit.derivedInterval))
                    }
                }
                all.append(ENMatchOccurrence(ordinal: index << 32 | position, key: occurrence.key, hits: hits))
            }
        }
        return try matcher.matches(of: all)
    }

    /// The memo for the next detection: every source of this one matched against every sighting of the matcher.
    var state: DetectionMemo.State {
        DetectionMemo.State(
            matched: Set(current),
            files: files.mapValues { $0.values.sorted { $0.position < $1.position } }, reach: reach)
    }
}
