import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit
import Synchronization

/// `/v1/receipts/{id}/pages/{page}` and `/v1/receipts/{id}/thumbnail`: pictures of a stored
/// receipt for people, made on the OCR engine's threads within its limits.
extension ReceiptServer {
    /// The long side of a thumbnail, in pixels.
    static let thumbnailSize = 320
    /// The long side of a PDF page as `pages/{page}` renders it (300 dpi or less).
    static let pageSize = 2400
    /// The largest page number `pages/{page}` understands (the API document's maximum); a PDF
    /// has at most `--max-pdf-pages`.
    static let maxPageNumber = 10_000

    /// `GET /v1/receipts/{id}/pages/{page}[?format=png|jpeg]`: page `page` (from 1) of a PDF
    /// receipt, with the number of pages in `X-Page-Count`; of a receipt photographed in several
    /// pictures, picture `page` as a browser shows it (`format` is for PDF pages), with the number
    /// of pictures. 404 for a page the receipt does not have and for a receipt of one picture that
    /// is not a PDF.
    func page(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["format"])
        let id = try self.id(context)
        let text = context.parameters.get("page") ?? ""
        guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(text), (1...Self.maxPageNumber).contains(number) else {
            throw Problem(.badRequest, "page must be a whole number from 1 to \(Self.maxPageNumber) (got '\(text)')")
        }
        let format = query["format"] ?? "png"
        guard let encoding = PictureEncoding(rawValue: format) else {
            throw Problem(.badRequest, "format must be png or jpeg (got '\(format)')")
        }
        // A long receipt photographed in several pictures: page n is picture n (ReceiptServer+LongReceipts.swift).
        _ = try await visibleReceipt(id, context)
        if let (picture, count) = try await self.picture(id, number: number, for: scoped(context)) {
            guard let picture else {
                throw Problem(.notFound, "receipt \(id.uuidString.lowercased()) has \(count) pictures: there is no picture \(number)")
            }
            return Response(status: .ok, headers: [.contentType: ImageFormat.sniff(picture)?.mimeType ?? "image/jpeg",
                                                   .cacheControl: "private, max-age=86400", Self.pageCountHeader: String(count)],
                            body: .init(byteBuffer: ByteBuffer(bytes: picture)))
        }
        let (data, engine) = try await storedPicture(id, context)
        guard ImageFormat.sniff(data) == .pdf else {
            throw Problem(.notFound, "receipt \(id.uuidString.lowercased()) is an image, not a PDF: it has no pages (its image is \(Self.location(id))/image)")
        }
        let (picture, count) = try await rendering(id) {
            try await engine.pdfPage(data, number: number, encoding: encoding, maxDimension: Self.pageSize, file: "receipt \(id.uuidString.lowercased())")
        }
        guard let picture else {
            throw Problem(.notFound, "receipt \(id.uuidString.lowercased()) has \(count) page\(count == 1 ? "" : "s"): there is no page \(number)")
        }
        return Response(status: .ok, headers: [.contentType: encoding.mimeType, .cacheControl: "private, max-age=86400",
                                               Self.pageCountHeader: String(count)],
                        body: .init(byteBuffer: ByteBuffer(bytes: picture)))
    }

    static let pageCountHeader = HTTPField.Name("X-Page-Count")!

    /// `GET /v1/receipts/{id}/thumbnail`: a JPEG at most `thumbnailSize` pixels on its long side
    /// (a PDF's first page), kept in memory once made: a cached one is served without loading the
    /// stored bytes.
    func thumbnail(_ id: UUID, _ context: ReceiptRequestContext) async throws -> Response {
        let picture: Data
        if let cached = thumbnails.get(id), try await scoped(context).receipt(id: id) != nil {
            picture = cached
        } else {
            let data = try await storedBytes(id, context)
            // An e-mail's body read as rows: those rows (ReceiptServer+Email.swift).
            if let eReceipt = Self.eReceiptPicture(data, thumbnail: true) { return eReceipt }
            let engine = try pictureEngine()
            picture = try await rendering(id) {
                try await engine.thumbnail(data, maxDimension: Self.thumbnailSize, file: "receipt \(id.uuidString.lowercased())")
            }
            thumbnails.put(id, picture)
        }
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=86400"],
                        body: .init(byteBuffer: ByteBuffer(bytes: picture)))
    }

    /// The stored bytes of a receipt and the engine that decodes them (404 without either).
    private func storedPicture(_ id: UUID, _ context: ReceiptRequestContext) async throws -> (Data, OCREngine) {
        (try await storedBytes(id, context), try pictureEngine())
    }

    /// The stored bytes of a receipt the caller may see (404 when it is not there or they are gone).
    private func storedBytes(_ id: UUID, _ context: ReceiptRequestContext) async throws -> Data {
        _ = try await visibleReceipt(id, context)
        guard let data = try await scoped(context).image(ofReceipt: id) else {
            throw Problem(.notFound, "the image of receipt \(id.uuidString.lowercased()) is no longer stored")
        }
        return data
    }

    private func pictureEngine() throws -> OCREngine {
        guard let engine = processor.ocrEngine else { throw Problem(.notFound, "this server has no image decoder to draw the receipt") }
        return engine
    }

    /// A picture made from stored bytes; bytes OCR cannot read either (a broken or encrypted PDF,
    /// one above the page or pixel limit) are a 422 saying why.
    private func rendering<T>(_ id: UUID, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ReceiptError where error.code == .badImage || error.code == .tooLarge {
            throw Problem(.unprocessableContent, "cannot draw receipt \(id.uuidString.lowercased()): \(configuration.advice.apply(to: error).message)")
        }
    }
}

/// Thumbnails made since the server started, by receipt (a receipt's bytes never change), the
/// oldest dropped beyond `capacity` (about 15 KB each).
final class ThumbnailCache: Sendable {
    private let entries = Mutex<(pictures: [UUID: Data], order: [UUID])>(([:], []))
    let capacity: Int

    init(capacity: Int = 1000) { self.capacity = capacity }

    func get(_ id: UUID) -> Data? { entries.withLock { $0.pictures[id] } }

    func put(_ id: UUID, _ picture: Data) {
        entries.withLock { e in
            if e.pictures.updateValue(picture, forKey: id) == nil { e.order.append(id) }
            while e.order.count > capacity { e.pictures[e.order.removeFirst()] = nil }
        }
    }
}
