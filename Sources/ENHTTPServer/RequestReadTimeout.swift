import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request does not arrive whole, head and body, within `timeout` of its first byte:
/// the slow client's attack (slowloris) of holding connections open by sending a byte now and then.
///
/// It sits after the HTTP decoder, where it sees where a request ends, and puts a ``FirstByte`` watcher at the
/// front of the pipeline, where it sees a request begin (the first bytes of a head that is still being sent).
final class RequestReadTimeout: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let timeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        try? context.pipeline.syncOperations.addHandler(FirstByte(owner: self), position: .first)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: begin()
        case .body: break
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    /// A request has begun: it has `timeout` to arrive, unless it already had.
    func begin() {
        guard deadline == nil, let context else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) { handler.value.expire() }
    }

    private func expire() {
        deadline = nil
        context?.close(promise: nil)
    }

    /// Tells the timeout when bytes arrive: the first bytes after a whole request begin the next one.
    final class FirstByte: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer

        private weak var owner: RequestReadTimeout?

        init(owner: RequestReadTimeout) { self.owner = owner }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            owner?.begin()
            context.fireChannelRead(data)
        }
    }
}
