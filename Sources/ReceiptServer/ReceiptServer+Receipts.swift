import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit
import ReceiptServerStore

/// `/v1/receipts`: uploads, listing, one receipt, its image, retrying and deleting.
extension ReceiptServer {
    /// `POST /v1/receipts`. The same bytes from the same user (and end user) are the same receipt;
    /// from another user, another receipt. An `Idempotency-Key` (each user has keys of their own)
    /// stands for one image: sent again with it, the same receipt (a failed one is tried again);
    /// sent with other bytes, 422 and nothing stored. Of concurrent requests with one key, exactly
    /// one submits (`ServerStore.claimIdempotencyKey`). `?group=` shares the receipt with a group
    /// the user edits; `metadata` (a JSON object, `?metadata=` or a multipart part) is kept as given.
    func upload(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let principal = try context.who()
        let query = try QueryParameters(request, allowed: ["wait", "filename", "group", "metadata"])
        let key = request.headers[HTTPField.Name("Idempotency-Key")!]
        if let key, key.isEmpty || key.unicodeScalars.count > 200 { throw Problem(.badRequest, "Idempotency-Key must be 1 to 200 characters") }
        let wait = try waitSeconds(query)
        let upload = try await imageBody(request, context, query: query)
        let pictures = upload.pictures
        if query["metadata"] != nil, upload.metadata != nil {
            throw Problem(.badRequest, "metadata is given twice, as ?metadata= and as a multipart part; send it once")
        }
        let ownership = try principal.ownership(group: query["group"], metadata: try Self.metadata(query["metadata"] ?? upload.metadata))
        // Hashed once: the idempotency key's fingerprint and the receipt's content hash (of one
        // picture). Several `file` parts are one receipt's pictures; the key stands for all of
        // them in order.
        let fingerprint = pictures.count == 1 ? ContentHash.hex(of: pictures[0].data)
            : ContentHash.hex(ofPictures: pictures.map { ContentHash.hex(of: $0.data) })
        let mine = pipeline.scoped(to: principal)
        var receipt: Receipt
        var isNew = true
        if let key {
            switch try await store.claimIdempotencyKey(key, of: principal, fingerprint: fingerprint, now: Date()) {
            case let .taken(known, _) where known != fingerprint:
                throw Problem(.unprocessableContent,
                              "Idempotency-Key '\(key)' was used for another image; send a new key for a new upload")
            case let .taken(_, id?):
                guard let existing = try await mine.receipt(id: id) else { throw Self.unknown(id) }
                // The same request again: the same receipt (a failed one is tried again).
                receipt = existing.ocrStatus == .failed ? try await mine.retry(existing.id) : existing
                isNew = false
            case .taken(_, nil):
                // The same bytes are being stored by a request in flight: they are one receipt.
                (receipt, isNew) = try await submit(pictures, as: ownership, hash: fingerprint)
            case .claimed:
                do {
                    (receipt, isNew) = try await submit(pictures, as: ownership, hash: fingerprint)
                } catch {
                    try? await store.releaseIdempotencyKey(key, of: principal, fingerprint: fingerprint)
                    throw error
                }
                try await store.bindIdempotencyKey(key, of: principal, receiptId: receipt.id)
            }
        } else {
            (receipt, isNew) = try await submit(pictures, as: ownership, hash: fingerprint)
        }
        // The same bytes again are the receipt they were stored as: its group and metadata stay as
        // first given, and the answer says which of this upload's were not applied.
        var notApplied: [String] = []
        if !isNew {
            if query["group"] != nil, receipt.ownership.group != ownership.group { notApplied.append("group") }
            if ownership.metadata != nil, receipt.ownership.metadata != ownership.metadata { notApplied.append("metadata") }
        }
        let duplicate = DuplicateUpload(isDuplicate: !isNew, notApplied: notApplied)
        if let wait, wait > 0, let finished = try await finished(receipt.id, for: mine, within: wait) {
            return try await recordResponse(finished, for: mine, status: .ok, duplicate: duplicate)
        }
        if receipt.ocrStatus == .completed || receipt.ocrStatus == .failed {
            return try await recordResponse(receipt, for: mine, status: .ok, duplicate: duplicate)
        }
        return try await accepted(receipt, for: mine, duplicate: duplicate)
    }

    /// What an upload's answer says beside the record: whether the bytes were the uploader's
    /// already (`duplicate`), and which of this upload's settings the existing receipt did not take
    /// (`notApplied`: `group`, `metadata`).
    struct DuplicateUpload {
        var isDuplicate: Bool
        var notApplied: [String]

        func adding(to record: JSONValue) -> JSONValue {
            guard case var .object(fields) = record else { return record }
            fields.append(("duplicate", .bool(isDuplicate)))
            if !notApplied.isEmpty { fields.append(("notApplied", .array(notApplied.map(JSONValue.string)))) }
            return .object(fields)
        }
    }

    /// `metadata` as given (JSON text), checked: a JSON object of at most 4 KB (400 otherwise).
    static func metadata(_ text: String?) throws -> JSONValue? {
        guard let text else { return nil }
        guard let value = try? JSONValue.parse(text) else {
            throw Problem(.badRequest, "metadata is not JSON: send a JSON object, e.g. {\"order\": \"A-1\"}")
        }
        do {
            try Ownership.checkMetadata(value)
        } catch let error as ReceiptError {
            throw Problem(.badRequest, error.message)
        }
        return value
    }

    /// Submits the picture (whose `ContentHash.hex` is `hash`), or a long receipt's pictures
    /// (`hash`: of all of them), unless too many receipts wait already (429).
    private func submit(_ pictures: [ReceiptPicture], as ownership: Ownership, hash: String) async throws -> (Receipt, Bool) {
        try await checkQueueRoom()
        if pictures.count > 1 { return try await pipeline.submitReporting(pictures: pictures, as: ownership) }
        return try await pipeline.submitReporting(imageData: pictures[0].data, filename: pictures[0].name, as: ownership, contentHash: hash)
    }

    /// 429 when too many receipts wait to be read already.
    func checkQueueRoom() async throws {
        if try await pipeline.waitingCount() >= configuration.maxPending {
            throw Problem(.tooManyRequests, "\(configuration.maxPending) receipts are waiting to be read\(configuration.advice[.maxPending]); try again shortly")
        }
    }

    /// The receipt once completed or failed, or nil when that takes longer than `seconds`.
    func finished(_ id: UUID, for mine: ScopedPipeline, within seconds: Double) async throws -> Receipt? {
        try await withThrowingTaskGroup(of: Receipt?.self) { group in
            group.addTask { try await mine.waitForCompletion(of: id) }
            group.addTask { try await Task.sleep(for: .seconds(seconds)); return nil }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// 202 with the record as it is and `Location` naming where it will be.
    func accepted(_ receipt: Receipt, for mine: ScopedPipeline, duplicate: DuplicateUpload? = nil) async throws -> Response {
        var response = try await recordResponse(receipt, for: mine, status: .accepted, duplicate: duplicate)
        response.headers[.location] = Self.location(receipt.id)
        return response
    }

    static func location(_ id: UUID) -> String { "/v1/receipts/\(id.uuidString.lowercased())" }

    /// `GET /v1/receipts`: the receipts the caller may see, newest first; `next` is the id to pass
    /// as `after` for the next page. `needsReview=true` keeps the receipts whose expense waits for
    /// a person (`false`: the others); `externalUser` one end user's; `owner` one user's. Each page
    /// is a query of the store (its indexes, keyset paging), with its expenses read in one more.
    /// `counts=true` adds `counts`: how many of the listing's receipts (its owner and end user;
    /// status and needsReview aside) are in each of the inbox's states, up to 10,000 each.
    func list(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let principal = try context.who()
        let query = try QueryParameters(request, allowed: ["status", "needsReview", "limit", "after", "externalUser", "owner", "counts"])
        let mine = pipeline.scoped(to: principal)
        var filter = ReceiptQuery(externalUser: query["externalUser"], owner: query["owner"])
        if let status = query["status"] {
            guard let parsed = OCRStatus(rawValue: status) else {
                throw Problem(.badRequest, "status must be one of pending, processing, completed, failed (got '\(status)')")
            }
            filter.status = parsed
        }
        let limit = try query.integer("limit", in: 1...500) ?? 50
        filter.needsReview = try query.flag("needsReview")
        filter.after = try query.id("after")
        let counts = try query.flag("counts") ?? false
        // One more than the page: whether there is a next page.
        filter.limit = limit + 1
        let receipts = try await mine.receipts(filter)
        let page = Array(receipts.prefix(limit))
        let items = try await recordsJSON(page, for: mine)
        let next = receipts.count > limit ? page.last.map { JSONValue.string($0.id.uuidString.lowercased()) } ?? .null : .null
        var fields: [(String, JSONValue)] = [("receipts", .array(items)), ("next", next)]
        if counts { fields.append(("counts", try await mine.records.inboxCounts(filter, cap: Self.countCap).json)) }
        return Self.json(JSONValue.object(fields))
    }

    /// The most an inbox count counts (`counts=true`): beyond it, "at least".
    static let countCap = 10_000

    func record(_ id: UUID, _ context: ReceiptRequestContext) async throws -> Response {
        let mine = try scoped(context)
        return try await recordResponse(try await visibleReceipt(id, context), for: mine, status: .ok)
    }

    /// The receipts as the request's principal may see and change them.
    func scoped(_ context: ReceiptRequestContext) throws -> ScopedPipeline {
        pipeline.scoped(to: try context.who())
    }

    /// The receipt with this id if the request may see it: 404 otherwise (whether it exists or
    /// belongs to someone else is not said).
    func visibleReceipt(_ id: UUID, _ context: ReceiptRequestContext) async throws -> Receipt {
        guard let receipt = try await scoped(context).receipt(id: id) else { throw Self.unknown(id) }
        return receipt
    }

    /// The receipt with this id if the request may change it: 404 when it may not see it, 403
    /// when it may only look (a group's viewer).
    func changeableReceipt(_ id: UUID, _ context: ReceiptRequestContext, deleting: Bool = false) async throws -> Receipt {
        let principal = try context.who()
        let receipt = try await visibleReceipt(id, context)
        guard deleting ? principal.mayDelete(receipt) : principal.mayChange(receipt) else {
            let why = deleting ? "only its owner (\(receipt.ownership.owner)) or an administrator may delete it"
                : "you may view it\(receipt.ownership.group.map { " as a viewer of '\($0)'" } ?? ""), not change it"
            throw Problem(.forbidden, "receipt \(id.uuidString.lowercased()): \(why)")
        }
        return receipt
    }

    /// `DELETE /v1/receipts/{id}[?force=true]`: a receipt whose expense is confirmed (a person's
    /// record) is kept (409) unless forced.
    func delete(_ request: Request, _ context: ReceiptRequestContext, _ id: UUID) async throws -> Response {
        let force = try QueryParameters(request, allowed: ["force"]).flag("force") ?? false
        _ = try await changeableReceipt(id, context, deleting: true)
        do {
            for image in try await scoped(context).records.deleteReceiptAndPictures(id: id, force: force) {
                try? FileManager.default.removeItem(atPath: image)
            }
        } catch let error as ReceiptError where error.code == .notFound {
            throw Self.unknown(id)
        } catch let error as ReceiptError where error.code == .invalidState {
            throw Problem(.conflict, "receipt \(id.uuidString.lowercased()) has a confirmed expense (a person's record); add ?force=true to delete both")
        }
        return Response(status: .noContent)
    }

    func image(_ id: UUID, _ context: ReceiptRequestContext) async throws -> Response {
        _ = try await visibleReceipt(id, context)
        guard let data = try await scoped(context).image(ofReceipt: id) else {
            throw Problem(.notFound, "the image of receipt \(id.uuidString.lowercased()) is no longer stored")
        }
        let type = ImageFormat.sniff(data)?.mimeType ?? "application/octet-stream"
        return Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func retry(_ id: UUID, _ context: ReceiptRequestContext) async throws -> Response {
        _ = try await changeableReceipt(id, context)
        let mine = try scoped(context)
        do {
            return try await accepted(try await mine.retry(id), for: mine)
        } catch let error as ReceiptError where error.code == .invalidState {
            throw Problem(.conflict, error.message)
        }
    }

    // MARK: Upload bodies

    /// The image of an upload and its name: the body itself (named by `?filename=`, else by
    /// `Content-Disposition: …; filename=`, else "upload"), or the `file` parts of a multipart body
    /// (several: a long receipt's pictures, top to bottom), with its `metadata` part, if any.
    func imageBody(_ request: Request, _ context: ReceiptRequestContext, query: QueryParameters) async throws
        -> (pictures: [ReceiptPicture], metadata: String?) {
        let body = try await BoundedBody.collect(request, context: context, limit: configuration.maxUploadBytes + 64 * 1024,
                                                 reported: configuration.maxUploadBytes, setting: configuration.advice[.maxUploadSize])
        let type = request.headers[.contentType] ?? ""
        var given: [(bytes: Data, filename: String?)]
        var metadata: String?
        if type.lowercased().hasPrefix("multipart/form-data") {
            let form = try Multipart.upload(in: Data(buffer: body), contentType: type)
            given = form.files.map { ($0.data, $0.filename) }
            metadata = form.metadata
        } else {
            given = [(Data(buffer: body), request.headers[.contentDisposition].flatMap { Multipart.dispositionParameter("filename", in: $0) })]
        }
        if let name = query["filename"] { given[0].filename = name }
        var pictures: [ReceiptPicture] = []
        for (index, part) in given.enumerated() {
            let which = given.count > 1 ? "picture \(index + 1) of the upload" : "the upload"
            guard !part.bytes.isEmpty else { throw Problem(.badRequest, "\(which) is empty") }
            guard part.bytes.count <= configuration.maxUploadBytes else {
                throw Problem(.contentTooLarge, String(format: "\(which) is larger than %.3g MB", Double(configuration.maxUploadBytes) / 1_048_576)
                              + configuration.advice[.maxUploadSize])
            }
            try Self.checkFormat(part.bytes, which: given.count > 1 ? which : nil)
            let name = Self.displayName(part.filename)
            try checkPixels(part.bytes, file: name)
            pictures.append(ReceiptPicture(data: part.bytes, name: name))
        }
        return (pictures, metadata)
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

    static func checkFormat(_ data: Data, which: String? = nil) throws {
        guard ImageFormat.sniff(data) != nil else {
            throw Problem(.unsupportedMediaType, "\(which.map { $0 + ": " } ?? "")not a receipt image or PDF: unrecognised format (supported: \(ImageFormat.supportedNames))")
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

    func recordJSON(_ receipt: Receipt, for mine: ScopedPipeline) async throws -> JSONValue {
        let expense = try await mine.expense(forReceipt: receipt.id)
        return ReceiptOutcome(source: receipt.filePath, receipt: receipt, expense: expense, isDuplicate: false).record.json
    }

    /// The records of a page of receipts, their expenses read in one query.
    func recordsJSON(_ receipts: [Receipt], for mine: ScopedPipeline) async throws -> [JSONValue] {
        let expenses = Dictionary(try await mine.records.expenses(ofReceipts: receipts.map(\.id)).map { ($0.receiptId, $0) },
                                  uniquingKeysWith: { first, _ in first })
        return receipts.map { ReceiptOutcome(source: $0.filePath, receipt: $0, expense: expenses[$0.id], isDuplicate: false).record.json }
    }

    func recordResponse(_ receipt: Receipt, for mine: ScopedPipeline, status: HTTPResponse.Status, duplicate: DuplicateUpload? = nil) async throws -> Response {
        let record = try await recordJSON(receipt, for: mine)
        return Self.json(duplicate.map { $0.adding(to: record) } ?? record, status: status)
    }
}
