import ENCore
package import Foundation
package import Hummingbird

/// The clock of a server started with `--test-clock START` (`enserver serve`, `enverify serve`): it starts at
/// `START` and moves only when a client sets it (`POST /v1/test/clock` on `enserver`'s admin listener,
/// `POST /api/test/clock` on `enverify`'s), never backwards, so that a simulator or a test can drive real servers
/// through days of virtual time. Never for production: a client that can set the clock decides what is embargoed,
/// exported and dropped, and which codes, tokens and certificates are still valid.
package final class TestClock: Sendable {
    private let moment: Locked<Date>

    /// The most bytes of a request to move the clock (`{"now": "…"}`).
    package static let maximumBodyByteCount = 1024

    /// A clock standing at `start`.
    package init(start: Date) { moment = Locked(start) }

    /// The current moment.
    package var now: Date { moment.withLock { $0 } }

    /// Moves the clock to `date`; `false`, and no change, when `date` is before the current moment.
    package func advance(to date: Date) -> Bool {
        moment.withLock { (now: inout Date) -> Bool in
            guard date >= now else { return false }
            now = date
            return true
        }
    }

    /// What a request to move the clock did.
    package enum Move: Equatable, Sendable {
        /// The clock now stands at this moment.
        case moved(Date)
        /// Nothing changed: the HTTP status (400 a body that is not `{"now": RFC 3339}`, 409 a moment before the
        /// clock's, 413 a body over ``TestClock/maximumBodyByteCount``) and why, for the client.
        case refused(status: Int, message: String)
    }

    /// Moves the clock to the moment a request's body names (`{"now": "2026-11-24T12:00:00Z"}`), reading at most
    /// ``maximumBodyByteCount`` bytes of it.
    package func move(by body: RequestBody) async -> Move {
        let read = await BoundedRequestBody.read(body, limit: Self.maximumBodyByteCount)
        if read.exceedsLimit {
            return .refused(status: 413, message: "the body is over \(Self.maximumBodyByteCount) bytes")
        }
        if read.error != nil { return .refused(status: 400, message: "the body could not be read") }
        struct Body: Decodable { var now: String }
        guard let body = try? JSONDecoder().decode(Body.self, from: read.bytes), let date = RFC3339.date(from: body.now)
        else { return .refused(status: 400, message: #"want {"now": "2026-11-24T12:00:00Z"}"#) }
        guard advance(to: date) else {
            return .refused(status: 409, message: "\(body.now) is before the clock's \(now.formatted(.iso8601))")
        }
        return .moved(now)
    }
}
