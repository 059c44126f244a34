package import Hummingbird
import NIOCore

/// The request context of `enserver`'s routes: Hummingbird's core context and the socket peer's address (for the
/// publish rate limit; never logged).
package struct KeyServerRequestContext: RequestContext {
    /// Hummingbird's core context.
    package var coreContext: CoreRequestContextStorage
    /// The IP address of the socket's peer, when the channel has one.
    package let peerAddress: String?

    package init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }
}
