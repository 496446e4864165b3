import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit
import ReceiptServerStore

/// `/v1/receipts`: uploads, listing, one receipt, its image, retrying and deleting.
extension ReceiptServer {
    /// `POST /v1/receipts`. The same bytes are the same receipt. An `Idempotency-Key` stands for
    /// one image: sent again with it, the same receipt (a failed one is tried again); sent with
    /// other bytes, 422 and nothing stored. Of concurrent requests with one key, exactly one
    /// submits (`ServerStore.claimIdempotencyKey`).
    func upload(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["wait", "filename"])
        let key = request.headers[HTTPField.Name("Idempotency-Key")!]
        if let key, key.isEmpty || key.unicodeScalars.count > 200 { throw Problem(.badRequest, "Idempotency-Key must be 1 to 200 characters") }
        let wait = try waitSeconds(query)
        let (bytes, filename) = try await imageBody(request, context, query: query)
        let fingerprint = ContentHash.hex(of: bytes)
        var receipt: Receipt
        if let key {
            switch try await store.claimIdempotencyKey(key, fingerprint: fingerprint, now: Date()) {
            case let .taken(known, _) where known != fingerprint:
                throw Problem(.unprocessableContent,
                              "Idempotency-Key '\(key)' was used for another image; send a new key for a new upload")
            case let .taken(_, id?):
                guard let existing = try await pipeline.receipt(id: id) else { throw Self.unknown(id) }
                // The same request again: the same receipt (a failed one is tried again).
                receipt = existing.ocrStatus == .failed ? try await pipeline.retry(existing.id) : existing
            case .taken(_, nil):
                // The same bytes are being stored by a request in flight: they are one receipt.
                receipt = try await submit(bytes, filename: filename)
            case .claimed:
                do {
                    receipt = try await submit(bytes, filename: filename)
                } catch {
                    try? await store.releaseIdempotencyKey(key, fingerprint: fingerprint)
                    throw error
                }
                try await store.bindIdempotencyKey(key, receiptId: receipt.id)
            }
        } else {
            receipt = try await submit(bytes, filename: filename)
        }
        if let wait, wait > 0, let finished = try await finished(receipt.id, within: wait) {
            return try await recordResponse(finished, status: .ok)
        }
        if receipt.ocrStatus == .completed || receipt.ocrStatus == .failed {
            return try await recordResponse(receipt, status: .ok)
        }
        return try await accepted(receipt)
    }

    /// Submits the bytes unless too many receipts wait already (429).
    private func submit(_ bytes: Data, filename: String) async throws -> Receipt {
        let counts = try await store.statusCounts()
        if (counts[.pending] ?? 0) + (counts[.processing] ?? 0) >= configuration.maxPending {
            throw Problem(.tooManyRequests, "\(configuration.maxPending) receipts are waiting to be read\(configuration.advice[.maxPending]); try again shortly")
        }
        return try await pipeline.submit(imageData: bytes, filename: filename)
    }

    /// The receipt once completed or failed, or nil when that takes longer than `seconds`.
    func finished(_ id: UUID, within seconds: Double) async throws -> Receipt? {
        try await withThrowingTaskGroup(of: Receipt?.self) { group in
            group.addTask { try await self.pipeline.waitForCompletion(of: id) }
            group.addTask { try await Task.sleep(for: .seconds(seconds)); return nil }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// 202 with the record as it is and `Location` naming where it will be.
    func accepted(_ receipt: Receipt) async throws -> Response {
        var response = try await recordResponse(receipt, status: .accepted)
        response.headers[.location] = Self.location(receipt.id)
        return response
    }

    static func location(_ id: UUID) -> String { "/v1/receipts/\(id.uuidString.lowercased())" }

    /// `GET /v1/receipts`: newest first; `next` is the id to pass as `after` for the next page.
    /// `needsReview=true` keeps the receipts whose expense waits for a person (`false`: the others).
    func list(_ request: Request) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["status", "needsReview", "limit", "after"])
        var filter = ReceiptQuery()
        if let status = query["status"] {
            guard let parsed = OCRStatus(rawValue: status) else {
                throw Problem(.badRequest, "status must be one of pending, processing, completed, failed (got '\(status)')")
            }
            filter.status = parsed
        }
        let limit = try query.integer("limit", in: 1...500) ?? 50
        let after = try query.id("after")
        var receipts = try await pipeline.receipts(filter)
        if let needsReview = try query.flag("needsReview") {
            let flagged = Set(try await pipeline.expenses(ExpenseQuery(needsReview: true)).map(\.receiptId))
            receipts = receipts.filter { flagged.contains($0.id) == needsReview }
        }
        if let after {
            guard let index = receipts.firstIndex(where: { $0.id == after }) else {
                throw Problem(.notFound, "after names no receipt of this listing (deleted, or of another status)")
            }
            receipts = Array(receipts[(index + 1)...])
        }
        let page = Array(receipts.prefix(limit))
        var items: [JSONValue] = []
        for receipt in page { items.append(try await recordJSON(receipt)) }
        let next = receipts.count > limit ? page.last.map { JSONValue.string($0.id.uuidString.lowercased()) } ?? .null : .null
        return Self.json(JSONValue.object([("receipts", .array(items)), ("next", next)]))
    }

    func record(_ id: UUID) async throws -> Response {
        guard let receipt = try await pipeline.receipt(id: id) else { throw Self.unknown(id) }
        return try await recordResponse(receipt, status: .ok)
    }

    /// `DELETE /v1/receipts/{id}[?force=true]`: a receipt whose expense is confirmed (a person's
    /// record) is kept (409) unless forced.
    func delete(_ request: Request, _ id: UUID) async throws -> Response {
        let force = try QueryParameters(request, allowed: ["force"]).flag("force") ?? false
        do {
            if let image = try await store.deleteReceipt(id: id, force: force) { try? FileManager.default.removeItem(atPath: image) }
        } catch let error as ReceiptError where error.code == .notFound {
            throw Self.unknown(id)
        } catch let error as ReceiptError where error.code == .invalidState {
            throw Problem(.conflict, "receipt \(id.uuidString.lowercased()) has a confirmed expense (a person's record); add ?force=true to delete both")
        }
        return Response(status: .noContent)
    }

    func image(_ id: UUID) async throws -> Response {
        guard try await pipeline.receipt(id: id) != nil else { throw Self.unknown(id) }
        guard let reference = try await pipeline.store.imagePath(ofReceipt: id),
              let data = try? await pipeline.images.load(reference) else {
            throw Problem(.notFound, "the image of receipt \(id.uuidString.lowercased()) is no longer stored")
        }
        let type = ImageFormat.sniff(data)?.mimeType ?? "application/octet-stream"
        return Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func retry(_ id: UUID) async throws -> Response {
        guard try await pipeline.receipt(id: id) != nil else { throw Self.unknown(id) }
        do {
            return try await accepted(try await pipeline.retry(id))
        } catch let error as ReceiptError where error.code == .invalidState {
            throw Problem(.conflict, error.message)
        }
    }

    // MARK: Upload bodies

    /// The image of an upload and its name: the body itself (named by `?filename=`, else by
    /// `Content-Disposition: …; filename=`, else "upload"), or the `file` part of a multipart body.
    private func imageBody(_ request: Request, _ context: ReceiptRequestContext, query: QueryParameters) async throws -> (Data, String) {
        let body = try await BoundedBody.collect(request, context: context, limit: configuration.maxUploadBytes + 64 * 1024,
                                                 reported: configuration.maxUploadBytes, setting: configuration.advice[.maxUploadSize])
        let type = request.headers[.contentType] ?? ""
        let bytes: Data
        var filename: String?
        if type.lowercased().hasPrefix("multipart/form-data") {
            let part = try Multipart.file(in: Data(buffer: body), contentType: type)
            (bytes, filename) = (part.data, part.filename)
        } else {
            bytes = Data(buffer: body)
            filename = request.headers[.contentDisposition].flatMap { Multipart.dispositionParameter("filename", in: $0) }
        }
        if let given = query["filename"] { filename = given }
        guard !bytes.isEmpty else { throw Problem(.badRequest, "the upload is empty") }
        guard bytes.count <= configuration.maxUploadBytes else {
            throw Problem(.contentTooLarge, String(format: "the upload is larger than %.3g MB", Double(configuration.maxUploadBytes) / 1_048_576)
                          + configuration.advice[.maxUploadSize])
        }
        try Self.checkFormat(bytes)
        let name = Self.displayName(filename)
        try checkPixels(bytes, file: name)
        return (bytes, name)
    }

    /// A client's file name as a receipt's `file`: its last path component, on one line, at most
    /// 255 characters; "upload" when none is given.
    static func displayName(_ given: String?) -> String {
        let last = (given ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let clean = String(last.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.prefix(255))
            .trimmingCharacters(in: .whitespaces)
        return clean.isEmpty || clean == "." || clean == ".." ? "upload" : clean
    }

    /// A pixel bomb (a small file claiming gigapixels) is refused with 422 before it is stored.
    func checkPixels(_ data: Data, file: String) throws {
        guard let engine = processor.ocrEngine else { return }
        do {
            try engine.checkPixelLimit(data, file: file)
        } catch let error as ReceiptError {
            throw Problem(.unprocessableContent, configuration.advice.apply(to: error).message)
        }
    }

    static func checkFormat(_ data: Data) throws {
        guard ImageFormat.sniff(data) != nil else {
            throw Problem(.unsupportedMediaType, "not a receipt image or PDF: unrecognised format (supported: \(ImageFormat.supportedNames))")
        }
    }

    private func waitSeconds(_ query: QueryParameters) throws -> Double? {
        guard let text = query["wait"] else { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
            throw Problem(.badRequest, "wait must be a number of seconds (got '\(text)')")
        }
        return min(seconds, configuration.maxWaitSeconds)
    }

    // MARK: Records

    func recordJSON(_ receipt: Receipt) async throws -> JSONValue {
        let expense = try await pipeline.expense(forReceipt: receipt.id)
        return ReceiptOutcome(source: receipt.filePath, receipt: receipt, expense: expense, isDuplicate: false).record.json
    }

    func recordResponse(_ receipt: Receipt, status: HTTPResponse.Status) async throws -> Response {
        Self.json(try await recordJSON(receipt), status: status)
    }
}
