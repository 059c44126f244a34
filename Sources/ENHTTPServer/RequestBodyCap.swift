import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Stops reading a request whose body is over `maximumBytes` (by its `Content-Length`, or as it arrives): the
/// route gets the body up to the cap and then ``Exceeded`` (the publish API answers 413), and the connection is
/// closed once the answer is written. A body is never drained: a 100 MB `X-Chaff` body costs the server the cap
/// and at most ``lingerBytes`` more.
///
/// The close lingers as a web server's does, so that the client reads the answer instead of a reset: the server
/// shuts its side, then drops what the client still sends for at most ``lingerTime`` and ``lingerBytes``.
package final class RequestBodyCap: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The error a route reading the body gets after the cap's bytes.
    package struct Exceeded: Error, CustomStringConvertible {
        /// The cap that was passed.
        package var maximumBytes: Int
        /// What a log line says.
        package var description: String { "the request body is over \(maximumBytes) bytes" }
    }

    /// The most body bytes dropped while the close lingers.
    static let lingerBytes = 1 << 20
    /// The longest the close lingers.
    static let lingerTime = TimeAmount.seconds(2)

    let maximumBytes: Int
    private var received = 0
    private var exceeded = false
    private var context: ChannelHandlerContext?
    private var lingering: Scheduled<Void>?
    private var closePromise: EventLoopPromise<Void>?
    private var closed = false
    private var dropped = 0

    init(maximumBytes: Int) { self.maximumBytes = maximumBytes }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        lingering?.cancel()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !exceeded else {
            if case .body(let buffer) = unwrapInboundIn(data) {
                dropped += buffer.readableBytes
                if dropped > Self.lingerBytes { closeNow() }
            }
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            received = 0
            context.fireChannelRead(data)
            if let length = head.headerFields[.contentLength].flatMap({ Int($0) }), length > maximumBytes {
                exceed(context: context)
            }
        case .body(let buffer):
            received += buffer.readableBytes
            guard received > maximumBytes else {
                context.fireChannelRead(data)
                return
            }
            let room = buffer.readableBytes - (received - maximumBytes)
            if room > 0, let part = buffer.getSlice(at: buffer.readerIndex, length: room) {
                context.fireChannelRead(wrapInboundOut(.body(part)))
            }
            exceed(context: context)
        case .end:
            context.fireChannelRead(data)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // While the close lingers, keep reading (and dropping) what the client sends.
        if lingering != nil { context.read() }
        context.fireChannelReadComplete()
    }

    private func exceed(context: ChannelHandlerContext) {
        exceeded = true
        context.fireErrorCaught(Exceeded(maximumBytes: maximumBytes))
    }

    func read(context: ChannelHandlerContext) {
        // Past the cap nothing more is read for the request: the client's bytes wait until the close.
        guard !exceeded || lingering != nil else { return }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard exceeded, case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        // The answer is out: close rather than read the rest of the body.
        let written = promise ?? context.eventLoop.makePromise()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in handler.value.linger() }
        context.writeAndFlush(data, promise: written)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard exceeded, mode == .all, !closed else {
            context.close(mode: mode, promise: promise)
            return
        }
        if let promise {
            if let closePromise { closePromise.futureResult.cascade(to: promise) } else { closePromise = promise }
        }
        linger()
    }

    /// Shuts the server's side, then reads and drops for at most ``lingerTime`` before closing.
    private func linger() {
        guard lingering == nil, !closed, let context else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        lingering = context.eventLoop.scheduleTask(in: Self.lingerTime) { handler.value.closeNow() }
        context.close(mode: .output, promise: nil)
        context.read()
    }

    private func closeNow() {
        guard !closed, let context else { return }
        closed = true
        lingering?.cancel()
        context.close(mode: .all, promise: closePromise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        lingering?.cancel()
        closed = true
        context.fireChannelInactive()
    }
}
