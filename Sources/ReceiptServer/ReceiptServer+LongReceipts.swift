import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit
import ReceiptServerStore

/// Receipts photographed in several pictures (a long receipt): `POST /v1/receipts/{id}/pictures`
/// adds one below the others, `POST /v1/receipts/{id}/split` makes a receipt of each (pictures of
/// different receipts sent as one), and `GET /v1/receipts/{id}/pages/{n}` shows picture `n`.
extension ReceiptServer {
    /// `POST /v1/receipts/{id}/pictures[?wait=][&filename=]`: the picture (the body, or a
    /// multipart body's one `file` part) goes below the receipt's others and the receipt is read
    /// again with it, its expense drafted anew. Its owner, a group editor or an administrator may
    /// (403 for a viewer); 409 when its expense is confirmed. An `Idempotency-Key` sent again with
    /// the same picture answers with the receipt and adds nothing (a phone's retry after a lost
    /// answer); with another picture, 422.
    func addPicture(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let principal = try context.who()
        let id = try self.id(context)
        let query = try QueryParameters(request, allowed: ["wait", "filename"])
        let key = request.headers[HTTPField.Name("Idempotency-Key")!]
        if let key, key.isEmpty || key.unicodeScalars.count > 200 { throw Problem(.badRequest, "Idempotency-Key must be 1 to 200 characters") }
        let wait: Double? = try query["wait"].map { text in
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw Problem(.badRequest, "wait must be a number of seconds (got '\(text)')")
            }
            return min(seconds, configuration.maxWaitSeconds)
        }
        _ = try await changeableReceipt(id, context)
        let upload = try await imageBody(request, context, query: query)
        guard upload.pictures.count == 1, let picture = upload.pictures.first else {
            throw Problem(.badRequest, "send one picture to add (got \(upload.pictures.count) 'file' parts)")
        }
        let mine = pipeline.scoped(to: principal)
        let count = try await mine.pictures(ofReceipt: id).count
        guard count < Multipart.maxPictures else {
            throw Problem(.conflict, "receipt \(id.uuidString.lowercased()) has \(count) pictures already, the most a receipt has")
        }
        // The key stands for this picture added to this receipt.
        let fingerprint = "picture:\(id.uuidString.lowercased()):" + ContentHash.hex(of: picture.data)
        var receipt: Receipt
        // Whether this picture was added before, with this key: the answer says so, as an upload's does.
        var duplicate = false
        if let key {
            switch try await store.claimIdempotencyKey(key, of: principal, fingerprint: fingerprint, now: Date()) {
            case let .taken(known, _) where known != fingerprint:
                throw Problem(.unprocessableContent, "Idempotency-Key '\(key)' was used for another request; send a new key for a new picture")
            case .taken:
                // Added already (or being added by a request in flight): the receipt as it is.
                receipt = try await visibleReceipt(id, context)
                duplicate = true
            case .claimed:
                do {
                    receipt = try await add(picture, to: id, for: mine)
                } catch {
                    try? await store.releaseIdempotencyKey(key, of: principal, fingerprint: fingerprint)
                    throw error
                }
                try await store.bindIdempotencyKey(key, of: principal, receiptId: receipt.id)
            }
        } else {
            receipt = try await add(picture, to: id, for: mine)
        }
        let answer = DuplicateUpload(isDuplicate: duplicate, notApplied: [])
        if let wait, wait > 0, let finished = try await finished(receipt.id, for: mine, within: wait) {
            return try await recordResponse(finished, for: mine, status: .ok, duplicate: answer)
        }
        return try await accepted(receipt, for: mine, duplicate: answer)
    }

    /// `POST /v1/receipts/{id}/split[?wait=]`: a receipt of several pictures that are different
    /// receipts (flagged `pictures` or `lineItems` in `analysis.review`) becomes one receipt per
    /// picture, each read on its own; the receipt and its drafted expense are deleted. Answers
    /// `{"receipts": [...]}`, the new receipts' records in picture order (a picture the caller had
    /// already as a receipt: that receipt), each as it is after up to `wait` seconds. Its owner, a
    /// group editor or an administrator may (403 for a viewer); 409 when its expense is confirmed
    /// or it is of one picture.
    func split(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let id = try self.id(context)
        let query = try QueryParameters(request, allowed: ["wait"])
        let wait: Double? = try query["wait"].map { text in
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw Problem(.badRequest, "wait must be a number of seconds (got '\(text)')")
            }
            return min(seconds, configuration.maxWaitSeconds)
        }
        _ = try await changeableReceipt(id, context)
        let mine = try scoped(context)
        var receipts: [Receipt]
        do {
            receipts = try await mine.split(id).map { $0.receipt }
        } catch let error as ReceiptError where error.code == .notFound {
            throw Self.unknown(id)
        } catch let error as ReceiptError where error.code == .invalidState {
            throw Problem(.conflict, error.message)
        }
        if let wait, wait > 0 {
            let deadline = ContinuousClock.now + .milliseconds(Int64(wait * 1000))
            for (i, receipt) in receipts.enumerated() where receipt.ocrStatus != .completed && receipt.ocrStatus != .failed {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { break }
                let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
                if let done = try await finished(receipt.id, for: mine, within: seconds) { receipts[i] = done }
            }
        }
        return Self.json(["receipts": .array(try await recordsJSON(receipts, for: mine))])
    }

    private func add(_ picture: ReceiptPicture, to id: UUID, for mine: ScopedPipeline) async throws -> Receipt {
        try await checkQueueRoom()
        do {
            return try await mine.addPicture(picture, toReceipt: id)
        } catch let error as ReceiptError where error.code == .notFound {
            throw Self.unknown(id)
        } catch let error as ReceiptError where error.code == .invalidState {
            throw Problem(.conflict, error.message)
        }
    }

    /// Picture `number` (from 1) of a receipt of several pictures, as a browser shows it (JPEG,
    /// PNG, GIF, WebP and BMP as stored; HEIC, AVIF, TIFF made a JPEG; a PDF its first page), and
    /// how many pictures it has; nil for a receipt of one picture.
    func picture(_ id: UUID, number: Int, for mine: ScopedPipeline) async throws -> (picture: Data?, count: Int)? {
        let pictures = try await mine.pictures(ofReceipt: id)
        guard pictures.count > 1 else { return nil }
        guard (1...pictures.count).contains(number) else { return (nil, pictures.count) }
        guard let data = try await pipeline.image(ofPicture: pictures[number - 1]) else {
            throw Problem(.notFound, "picture \(number) of receipt \(id.uuidString.lowercased()) is no longer stored")
        }
        return (try await viewable(data, file: "receipt \(id.uuidString.lowercased()) picture \(number)").data, pictures.count)
    }

    /// Bytes as a browser shows them, and their type: JPEG, PNG, GIF, WebP and BMP as stored; a PDF
    /// its first page; HEIC, AVIF and TIFF a JPEG (upright, at most 2400 pixels on its long side).
    func viewable(_ data: Data, file: String) async throws -> (data: Data, type: String) {
        let format = ImageFormat.sniff(data)
        if let format, ["image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp"].contains(format.mimeType) {
            return (data, format.mimeType)
        }
        guard let engine = processor.ocrEngine else { throw Problem(.notFound, "this server has no image decoder to show the receipt") }
        do {
            if format == .pdf {
                let page = try await engine.pdfPage(data, number: 1, encoding: .jpeg, maxDimension: Self.pageSize, file: file)
                guard let picture = page.picture else { throw Problem(.notFound, "\(file) has no page to show") }
                return (picture, "image/jpeg")
            }
            let shown = try await engine.imagePreparer(ImagePreparationRequest(image: data, mimeType: format?.mimeType, maxBytes: 8 << 20,
                                                                                 maxDimension: 2400, acceptedMimeTypes: ["image/jpeg"]))
            return (shown.data, shown.mimeType)
        } catch let error as ReceiptError where error.code == .badImage || error.code == .tooLarge {
            throw Problem(.unprocessableContent, "cannot draw \(file): \(configuration.advice.apply(to: error).message)")
        }
    }
}
