package import Foundation
package import Hummingbird
import NIOCore

/// A request body read up to a limit and no further: what both servers' routes hand their handlers.
package struct BoundedRequestBody: Sendable {
    /// The body's bytes, at most the limit.
    package var bytes: Data
    /// Whether the body went on past the limit (or ``RequestBodyCap`` cut it).
    package var exceedsLimit: Bool
    /// Why the body could not be read to its end, if it could not.
    package var error: (any Error)?

    /// Reads `body` up to `limit` bytes: a chunk that passes the limit is cut there and reading stops; an error
    /// while reading (the connection's body cap, a client gone) ends the body where it is.
    package static func read(_ body: RequestBody, limit: Int) async -> BoundedRequestBody {
        var buffer = ByteBuffer()
        var exceeds = false
        var failure: (any Error)?
        do {
            for try await var chunk in body {
                let room = limit - buffer.readableBytes
                if chunk.readableBytes > room {
                    if room > 0, let part = chunk.readSlice(length: room) { buffer.writeImmutableBuffer(part) }
                    exceeds = true
                    break
                }
                buffer.writeBuffer(&chunk)
            }
        } catch {
            failure = error
            exceeds = error is RequestBodyCap.Exceeded || buffer.readableBytes >= limit
        }
        return BoundedRequestBody(bytes: Data(buffer.readableBytesView), exceedsLimit: exceeds, error: failure)
    }
}
