import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit
import ReceiptMail

/// `POST /v1/inbound-email`: a raw RFC 822 message, as mail providers' inbound webhooks send it
/// ("raw MIME"), filed like a message read from a mailbox (`MailFiler`).
extension ReceiptServer {
    /// Answers only once the message is stored (its bytes, its row and its receipts, pending): 201
    /// for a new message, 200 for one stored before (the same bytes, or the same Message-ID), with
    /// the message and its receipts' records. A body that is not a message: 422, nothing stored.
    func inboundEmail(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "message/rfc822" else {
            throw Problem(.unsupportedMediaType, "send the raw message with Content-Type: message/rfc822 (got \(type ?? "none"))")
        }
        let body = try await BoundedBody.collect(request, context: context, limit: configuration.maxUploadBytes,
                                                 reported: configuration.maxUploadBytes, what: "the message",
                                                 setting: configuration.advice[.maxUploadSize])
        let raw = Data(buffer: body)
        do {
            _ = try MIMEMessage(raw)
        } catch let error as ReceiptError {
            throw Problem(.unprocessableContent, "not an RFC 822 message: \(error.message)")
        }
        if try await pipeline.waitingCount() >= configuration.maxPending {
            throw Problem(.tooManyRequests, "\(configuration.maxPending) receipts are waiting to be read\(configuration.advice[.maxPending]); try again shortly")
        }
        let filer = MailFiler(pipeline: pipeline, store: store, logger: logger)
        // The message and its receipts are the token's user's (for the end user it names), in
        // the user's default group: the same message from another user is another message.
        let principal = try context.who()
        let outcome = try await filer.file(raw, origin: .inbound, as: try principal.ownership(group: nil, metadata: nil))
        var records: [JSONValue] = []
        for receipt in outcome.receipts { records.append(try await recordJSON(receipt, for: pipeline.scoped(to: principal))) }
        let message = outcome.message
        return Self.json(JSONValue.object([
            ("messageId", .optionalString(message.messageId)),
            ("sha256", .string(message.sha256)),
            ("from", .optionalString(message.from)),
            ("subject", .optionalString(message.subject)),
            ("duplicate", .bool(outcome.isDuplicate)),
            ("receipts", .array(records)),
        ]), status: outcome.isDuplicate ? .ok : .created)
    }

    /// The mailboxes `serve --mail-config` polls, for `/readyz`.
    var mailStatus: JSONValue {
        .array(mailboxes.map { poller in
            let status = poller.status
            return .object([("mailbox", .string(status.mailbox)), ("state", .string(status.state.rawValue)),
                            ("error", .optionalString(status.error))])
        })
    }
}

extension ReceiptServer {
    /// An e-receipt (a mail's body read as rows) drawn as the review page shows it: its rows as
    /// text, each word in the box the analysis's `sources` name, so a field's words are
    /// highlighted as on an image. An SVG of text only: nothing in it runs or is fetched (and a
    /// browser runs nothing in an SVG shown as an image). Nil for any other receipt.
    /// `thumbnail`: its top, as tall as it is wide and ending between rows (the whole width: no
    /// word is cut at the sides of the inbox's square).
    static func eReceiptPicture(_ data: Data, thumbnail: Bool = false) -> Response? {
        guard let eReceipt = EReceipt(data: data) else { return nil }
        return Response(status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "private, max-age=86400"],
                        body: .init(byteBuffer: ByteBuffer(string: Self.svg(eReceipt, thumbnail: thumbnail))))
    }

    static func svg(_ eReceipt: EReceipt, thumbnail: Bool = false) -> String {
        let reading = eReceipt.reading()
        // The reading's own size: the boxes of `analysis.sources` fall on their words.
        var (width, height) = (reading.imageWidth, reading.imageHeight)
        if thumbnail, height > width {
            // The rows that fit in a square, whole.
            let bottoms = reading.lines.map(\.box.maxY).filter { $0 <= width }
            height = min(height, (bottoms.max() ?? width) + 8)
        }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">\
            <rect width="100%" height="100%" fill="#fff"/>\
            <g font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="16" fill="#111">
            """
        for word in reading.words where word.box.maxY <= height {
            svg += "<text x=\"\(word.box.x)\" y=\"\(word.box.y + 14)\" textLength=\"\(word.box.width)\" lengthAdjust=\"spacingAndGlyphs\">"
                + HTML.escape(word.text) + "</text>\n"
        }
        return svg + "</g></svg>\n"
    }
}
