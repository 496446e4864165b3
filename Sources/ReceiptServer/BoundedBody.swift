import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reading a request's body with a limit, and refusing one over it so that the client reads the
/// refusal: a client that sends its whole body before reading (Python's `urllib` and `http.client`
/// do) would otherwise wait for its own timeout.
enum BoundedBody {
    /// How much of a refused body is read and thrown away, at most, before answering.
    static let drainLimit = 64 << 20
    /// How long that may take, at most.
    static let drainTime: Duration = .seconds(10)
    /// How long after a refusal the connection is closed, whatever the client does.
    static let closeAfter: TimeAmount = .seconds(2)

    /// The body, up to `limit` bytes. Beyond it (or when `Content-Length` says so) the rest is read
    /// and thrown away, up to `drainLimit` bytes or `drainTime`, then a 413 naming `reported` (and
    /// `setting`, the program's advice on the limit) is thrown with `Connection: close`, and the
    /// connection is closed soon after the answer.
    static func collect(_ request: Request, context: ReceiptRequestContext, limit: Int, reported: Int,
                        what: String = "the upload", setting: String = "") async throws -> ByteBuffer {
        var iterator = request.body.makeAsyncIterator()
        var buffer = ByteBuffer()
        let declared = request.headers[.contentLength].flatMap(Int.init)
        if declared.map({ $0 <= limit }) ?? true {
            while let chunk = try await iterator.next() {
                guard buffer.readableBytes + chunk.readableBytes <= limit else {
                    try await drain(&iterator, already: buffer.readableBytes + chunk.readableBytes)
                    throw refusal(reported, what: what, setting: setting, context: context)
                }
                var chunk = chunk
                buffer.writeBuffer(&chunk)
            }
            return buffer
        }
        try await drain(&iterator, already: 0)
        throw refusal(reported, what: what, setting: setting, context: context)
    }

    /// Reads and drops what the client still sends, within `drainLimit` and `drainTime`.
    private static func drain<Iterator: AsyncIteratorProtocol>(_ iterator: inout Iterator, already: Int) async throws
        where Iterator.Element == ByteBuffer {
        let start = ContinuousClock.now
        var read = already
        while read < drainLimit, ContinuousClock.now - start < drainTime, let chunk = try await iterator.next() {
            read += chunk.readableBytes
        }
    }

    private static func refusal(_ reported: Int, what: String, setting: String, context: ReceiptRequestContext) -> Problem {
        let channel = context.channel
        // The answer goes out first; then the connection is closed, so a client that keeps sending
        // is not read from for ever (Hummingbird would read the rest of the body otherwise).
        channel.eventLoop.scheduleTask(in: closeAfter) { channel.close(promise: nil) }
        let megabytes = String(format: "%.3g", Double(reported) / 1_048_576)
        return Problem(.contentTooLarge, "\(what) is larger than \(megabytes) MB\(setting)", headers: [.connection: "close"])
    }
}
