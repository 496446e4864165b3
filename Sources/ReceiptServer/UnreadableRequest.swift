import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// A request that cannot be read as HTTP at all — a control byte in a header value
/// (`Receipts-External-User: a\x01b`), a request line or headers over the parser's limits (a 1 MB
/// query) — is answered with a problem document, as every other 4xx is, and the connection closed.
/// (Hummingbird answers these with an empty 400.) Sits after the HTTP/1 codec, on every connection.
///
/// Only between requests: when a response is still being written, the error goes on to
/// Hummingbird, which closes the connection (an answer written then would land inside the other).
final class UnreadableRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests read whose response has not ended yet.
    private var open = 0
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { open += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { open = max(0, open - 1) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard open == 0, !answered, let detail = Self.detail(error) else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        let problem = Problem(.badRequest, detail)
        var fields = problem.fields
        let body = ByteBuffer(string: problem.document)
        fields[.contentLength] = String(body.readableBytes)
        fields[.connection] = "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .badRequest, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }

    /// What is wrong with a request that could not be read, or nil for an error that is not about
    /// the request (a closed connection).
    static func detail(_ error: any Error) -> String? {
        guard let parser = error as? HTTPParserError else {
            // The codec could not make an HTTP request of the head (a target or a host it refuses).
            if String(describing: type(of: error)).contains("HTTP") { return "the request could not be read as HTTP: \(error)" }
            return nil
        }
        switch parser {
        case .closedConnection, .paused: return nil
        case .headerOverflow:
            return "the request's line or headers are too large: send large values (metadata) in the body, as a multipart part"
        case .invalidHeaderToken, .invalidCharactersUsed:
            return "a header name or value holds a character HTTP does not allow there (a control character such as \\x01 or \\x7f)"
        case .invalidURL:
            return "the request's target is not a valid URL path and query (encode spaces and control characters with %)"
        case .invalidMethod:
            return "the request's method is not a valid HTTP method"
        default:
            return "the request could not be read as HTTP/1.1 (\(parser))"
        }
    }
}
