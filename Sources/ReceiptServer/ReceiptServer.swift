import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ReceiptKit
import ServiceLifecycle

/// `receipts serve`: the pipeline over HTTP, for backends in any language.
///
/// Records are the NDJSON contract's (`ReceiptRecord`), never a second schema; errors are RFC 9457
/// problem documents (`application/problem+json`) with a one-line `detail` that never holds a
/// key, a token or a stack trace. Runs as a `Service` beside the OCR engine and the queue workers
/// in one `ServiceGroup`: on SIGTERM it stops accepting and the workers finish what they hold.
public final class ReceiptServer: Service, Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port (reported through `onListening`).
        public var port: Int
        /// Uploads above this many bytes are refused with 413 before the rest is read.
        public var maxUploadBytes: Int
        /// `?wait=` is capped at this many seconds.
        public var maxWaitSeconds: Double
        /// Uploads are refused with 429 while this many receipts wait or are being read.
        public var maxPending: Int

        public init(host: String = "127.0.0.1", port: Int = 8080, maxUploadBytes: Int = 20 << 20, maxWaitSeconds: Double = 30,
                    maxPending: Int = 1000) {
            self.maxPending = maxPending
            self.host = host
            self.port = port
            self.maxUploadBytes = maxUploadBytes
            self.maxWaitSeconds = maxWaitSeconds
        }
    }

    let pipeline: ReceiptPipeline
    let store: any ServerStore
    let processor: any ReceiptProcessing
    let configuration: Configuration
    let logger: Logger
    let onListening: @Sendable (_ host: String, _ port: Int) async -> Void
    let metrics: HTTPMetrics

    /// - Parameters:
    ///   - processor: reads `POST /v1/analyze` images synchronously, outside the queue.
    ///   - onListening: called once the socket is bound, with the port actually bound.
    /// Throws `.invalidConfiguration` when the pipeline's store cannot keep tokens and idempotency
    /// keys (`ServerStore`).
    /// - metrics: what `/metrics` reports; pass the one the pipeline's `onFinished` feeds to have
    ///   OCR and analysis times.
    public init(pipeline: ReceiptPipeline, processor: any ReceiptProcessing, configuration: Configuration = Configuration(),
                metrics: HTTPMetrics = HTTPMetrics(), logger: Logger,
                onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }) throws {
        self.metrics = metrics
        guard let store = pipeline.store as? any ServerStore else {
            throw ReceiptError(.invalidConfiguration, "this store cannot serve HTTP (it keeps no API tokens)", file: pipeline.store.location)
        }
        self.store = store
        self.pipeline = pipeline
        self.processor = processor
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
    }

    /// Whether `host` is a loopback address (the only kind served without API tokens).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    public func run() async throws {
        let (host, onListening) = (configuration.host, self.onListening)
        if !Self.isLoopback(host), try await !store.hasActiveTokens() {
            throw ReceiptError(.invalidConfiguration, "refusing to listen on \(host) without API tokens: create one with `receipts token create --name NAME`, or listen on 127.0.0.1")
        }
        let app = Application(
            router: makeRouter(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port), serverName: "receipts"),
            onServerRunning: { channel in await onListening(host, channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.run()
    }

    /// Every route the router serves (method, path), as `/openapi.yaml` must describe them.
    public static let routes: [(method: String, path: String)] = [
        ("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/metrics"), ("GET", "/openapi.yaml"),
        ("POST", "/v1/receipts"), ("GET", "/v1/receipts"), ("GET", "/v1/receipts/{id}"), ("DELETE", "/v1/receipts/{id}"),
        ("GET", "/v1/receipts/{id}/image"), ("POST", "/v1/receipts/{id}/retry"), ("GET", "/v1/expenses"), ("GET", "/v1/expenses/export.csv"), ("PATCH", "/v1/expenses/{id}"), ("POST", "/v1/analyze"),
    ]

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ProblemMiddleware(logger: logger))
        router.get("/healthz") { _, _ in Self.json(["status": .string("ok")]) }
        router.get("/readyz") { _, _ in try await self.ready() }
        router.get("/metrics") { _, _ in
            let counts = try await self.store.statusCounts()
            let text = self.metrics.text(receipts: OCRStatus.allCases.map { OCRStatusCount(status: $0.rawValue, count: counts[$0] ?? 0) })
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("/openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
        let v1 = router.group("/v1").add(middleware: BearerTokenMiddleware(store: store))
        v1.post("/receipts") { request, context in try await self.upload(request, context) }
        v1.get("/receipts") { request, _ in try await self.list(request) }
        v1.get("/receipts/:id") { _, context in try await self.record(self.id(context)) }
        v1.delete("/receipts/:id") { _, context in try await self.delete(self.id(context)) }
        v1.get("/receipts/:id/image") { _, context in try await self.image(self.id(context)) }
        v1.post("/receipts/:id/retry") { _, context in try await self.retry(self.id(context)) }
        v1.get("/expenses") { request, _ in try await self.expenses(request) }
        v1.get("/expenses/export.csv") { request, _ in try await self.exportCSV(request) }
        v1.patch("/expenses/:id") { request, context in try await self.correctExpense(request, self.id(context, "expense")) }
        v1.post("/analyze") { request, context in try await self.analyze(request, context) }
        return router
    }

    // MARK: Routes

    private func ready() async throws -> Response {
        do {
            _ = try await pipeline.store.statusCounts()
        } catch {
            throw Problem(.serviceUnavailable, "the store cannot be read: \((error as? ReceiptError)?.message ?? String(describing: error).oneLine)")
        }
        if let engine = (processor as? ReceiptProcessor)?.engine, !engine.isRunning {
            throw Problem(.serviceUnavailable, "the OCR engine is not running (starting or stopping)")
        }
        return Self.json(["status": .string("ready"), "store": .string("ok"), "ocr": .string("ok")])
    }

    private func upload(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let key = request.headers[HTTPField.Name("Idempotency-Key")!]
        if let key, key.isEmpty || key.count > 200 { throw Problem(.badRequest, "Idempotency-Key must be 1 to 200 characters") }
        let wait = try waitSeconds(request)
        var receipt: Receipt
        if let key, let known = try await store.receiptId(idempotencyKey: key), let existing = try await pipeline.receipt(id: known) {
            // The same key: the same receipt (a failed one is tried again), whatever the body.
            receipt = existing.ocrStatus == .failed ? try await pipeline.retry(existing.id) : existing
        } else {
            let (bytes, filename) = try await imageBody(request, context)
            let counts = try await store.statusCounts()
            if (counts[.pending] ?? 0) + (counts[.processing] ?? 0) >= configuration.maxPending {
                throw Problem(.tooManyRequests, "\(configuration.maxPending) receipts are waiting to be read (--max-pending); try again shortly")
            }
            receipt = try await pipeline.submit(imageData: bytes, filename: filename)
            if let key {
                let first = try await store.remember(idempotencyKey: key, receiptId: receipt.id, now: Date())
                if first != receipt.id, let other = try await pipeline.receipt(id: first) { receipt = other }
            }
        }
        if let wait, wait > 0, let finished = try await finished(receipt.id, within: wait) {
            return try await recordResponse(finished, status: .ok)
        }
        if receipt.ocrStatus == .completed || receipt.ocrStatus == .failed {
            return try await recordResponse(receipt, status: .ok)
        }
        return try await accepted(receipt)
    }

    /// The receipt once completed or failed, or nil when that takes longer than `seconds`.
    private func finished(_ id: UUID, within seconds: Double) async throws -> Receipt? {
        try await withThrowingTaskGroup(of: Receipt?.self) { group in
            group.addTask { try await self.pipeline.waitForCompletion(of: id) }
            group.addTask { try await Task.sleep(for: .seconds(seconds)); return nil }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// 202 with the record as it is and `Location` naming where it will be.
    private func accepted(_ receipt: Receipt) async throws -> Response {
        var response = try await recordResponse(receipt, status: .accepted)
        response.headers[.location] = Self.location(receipt.id)
        return response
    }

    private static func location(_ id: UUID) -> String { "/v1/receipts/\(id.uuidString.lowercased())" }

    private func list(_ request: Request) async throws -> Response {
        let parameters = request.uri.queryParameters
        var query = ReceiptQuery()
        if let status = parameters.get("status") {
            guard let parsed = OCRStatus(rawValue: status) else {
                throw Problem(.badRequest, "status must be one of pending, processing, completed, failed (got '\(status)')")
            }
            query.status = parsed
        }
        let limit = try parameters.get("limit").map { text -> Int in
            guard let n = Int(text), (1...500).contains(n) else { throw Problem(.badRequest, "limit must be a whole number from 1 to 500") }
            return n
        } ?? 50
        let after = try parameters.get("after").map { text -> UUID in
            guard let id = UUID(uuidString: text) else { throw Problem(.badRequest, "after must be a receipt id") }
            return id
        }
        // Newest first; the cursor is the last id of the previous page.
        var receipts = try await pipeline.receipts(query)
        if let after {
            guard let index = receipts.firstIndex(where: { $0.id == after }) else {
                throw Problem(.badRequest, "after names no receipt in this listing")
            }
            receipts = Array(receipts[(index + 1)...])
        }
        let page = Array(receipts.prefix(limit))
        var items: [JSONValue] = []
        for receipt in page { items.append(try await recordJSON(receipt)) }
        var body: [(String, JSONValue)] = [("receipts", .array(items))]
        let next = receipts.count > limit ? page.last.map { JSONValue.string($0.id.uuidString.lowercased()) } ?? .null : .null
        body.append(("next", next))
        return Self.json(JSONValue.object(body))
    }

    private func record(_ id: UUID) async throws -> Response {
        guard let receipt = try await pipeline.receipt(id: id) else { throw Self.unknown(id) }
        return try await recordResponse(receipt, status: .ok)
    }

    private func delete(_ id: UUID) async throws -> Response {
        do {
            if let image = try await store.deleteReceipt(id: id) { try? FileManager.default.removeItem(atPath: image) }
        } catch let error as ReceiptError where error.code == .notFound {
            throw Self.unknown(id)
        }
        return Response(status: .noContent)
    }

    private func expenses(_ request: Request) async throws -> Response {
        let expenses = try await pipeline.expenses(try expenseQuery(request))
        return Self.json(JSONValue.object([("expenses", .array(expenses.map(\.json)))]))
    }

    /// The expenses as CSV, one row each, for a spreadsheet or an accountant (the columns of
    /// `receipts export --format csv`).
    private func exportCSV(_ request: Request) async throws -> Response {
        let columns = ["date", "vendor", "category", "amount", "currency", "taxAmount", "taxDeductiblePercentage",
                       "deductibleAmount", "status", "needsReview", "receiptFile", "receiptId", "expenseId"]
        var lines = [columns.joined(separator: ",")]
        for e in try await pipeline.expenses(try expenseQuery(request)) {
            let receipt = try await pipeline.receipt(id: e.receiptId)
            let deductible = e.amount.map { ($0 * e.taxDeductiblePercentage / 100).rounded(scale: 2) }
            let cells: [String?] = [e.date?.description, e.description, e.category, e.amount?.moneyString, e.currency,
                                    e.taxAmount?.moneyString, e.taxDeductiblePercentage.plainString, deductible?.moneyString,
                                    e.status.rawValue, e.needsReview ? "true" : "false", receipt?.filePath,
                                    e.receiptId.uuidString.lowercased(), e.id.uuidString.lowercased()]
            lines.append(cells.map { Self.csvCell($0 ?? "") }.joined(separator: ","))
        }
        return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8",
                                               .contentDisposition: "attachment; filename=\"expenses.csv\""],
                        body: .init(byteBuffer: ByteBuffer(string: lines.joined(separator: "\r\n") + "\r\n")))
    }

    /// RFC 4180: quoted when it holds a comma, a quote or a line break; a leading = + - @ is
    /// prefixed with ' so a spreadsheet does not run it as a formula.
    static func csvCell(_ text: String) -> String {
        var cell = text
        if let first = cell.first, "=+-@".contains(first), Decimal(string: cell) == nil { cell = "'" + cell }
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private func expenseQuery(_ request: Request) throws -> ExpenseQuery {
        let parameters = request.uri.queryParameters
        func date(_ name: String) throws -> CalendarDate? {
            try parameters.get(name).map { text in
                guard let date = CalendarDate(iso: text) else { throw Problem(.badRequest, "\(name) must be a date YYYY-MM-DD") }
                return date
            }
        }
        var query = ExpenseQuery(from: try date("from"), to: try date("to"), category: parameters.get("category"))
        if let status = parameters.get("status") {
            guard let parsed = ExpenseStatus(rawValue: status) else { throw Problem(.badRequest, "status must be draft or confirmed") }
            query.status = parsed
        }
        return query
    }

    /// The review step: a person corrects fields of the drafted expense and confirms it. What the
    /// analyzer drafted for each corrected field is kept (`corrections`), so accuracy against what
    /// people corrected can be measured later.
    private func correctExpense(_ request: Request, _ id: UUID) async throws -> Response {
        guard var expense = try await store.expense(id: id) else { throw Problem(.notFound, "no expense with id \(id.uuidString.lowercased())") }
        var request = request
        let body = try await Self.collect(&request, upTo: 64 * 1024, reported: 64 * 1024)
        guard let fields = (try? JSONValue.parse([UInt8](buffer: body)))?.objectValue else {
            throw Problem(.badRequest, "the body must be a JSON object of the fields to change")
        }
        let before = expense.json
        func decimal(_ value: JSONValue, _ name: String) throws -> Decimal? {
            if value.isNull { return nil }
            guard let d = value.decimalValue ?? value.stringValue.flatMap({ Decimal(string: $0) }) else {
                throw Problem(.badRequest, "\(name) must be a decimal number or null")
            }
            return d
        }
        func string(_ value: JSONValue, _ name: String) throws -> String {
            guard let text = value.stringValue, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw Problem(.badRequest, "\(name) must be a non-empty string")
            }
            return text
        }
        var changed: [(field: String, drafted: JSONValue)] = []
        for (name, value) in fields {
            switch name {
            case "date":
                if value.isNull { expense.date = nil } else {
                    guard let date = value.stringValue.flatMap(CalendarDate.init(iso:)) else { throw Problem(.badRequest, "date must be YYYY-MM-DD or null") }
                    expense.date = date
                }
            case "amount": expense.amount = try decimal(value, name)
            case "taxAmount": expense.taxAmount = try decimal(value, name)
            case "currency": expense.currency = value.isNull ? nil : try string(value, name).uppercased()
            case "category": expense.category = try string(value, name)
            case "description": expense.description = try string(value, name)
            case "isTaxDeductible":
                guard let flag = value.boolValue else { throw Problem(.badRequest, "isTaxDeductible must be true or false") }
                expense.isTaxDeductible = flag
            case "taxDeductiblePercentage":
                guard let p = try decimal(value, name), p >= 0, p <= 100 else { throw Problem(.badRequest, "taxDeductiblePercentage must be from 0 to 100") }
                expense.taxDeductiblePercentage = p
            case "status":
                guard let status = value.stringValue.flatMap(ExpenseStatus.init(rawValue:)) else { throw Problem(.badRequest, "status must be draft or confirmed") }
                expense.status = status
                if status == .confirmed { expense.needsReview = false }
                continue
            default:
                throw Problem(.badRequest, "'\(name)' cannot be changed (date, amount, taxAmount, currency, category, description, isTaxDeductible, taxDeductiblePercentage, status)")
            }
            let drafted = before[name] ?? .null
            if expense.json[name] != drafted { changed.append((name, drafted)) }
        }
        let corrections = try await store.correct(expense, changed: changed, now: Date())
        guard let saved = try await store.expense(id: id) else { throw Self.unknown(id) }
        return Self.json(JSONValue.object([("expense", saved.json), ("corrections", corrections)]))
    }

    private func image(_ id: UUID) async throws -> Response {
        guard try await pipeline.receipt(id: id) != nil else { throw Self.unknown(id) }
        guard let reference = try await pipeline.store.imagePath(ofReceipt: id),
              let data = try? await pipeline.images.load(reference) else {
            throw Problem(.notFound, "the image of receipt \(id.uuidString.lowercased()) is no longer stored")
        }
        let type = ImageFormat.sniff(data)?.mimeType ?? "application/octet-stream"
        return Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private func retry(_ id: UUID) async throws -> Response {
        guard try await pipeline.receipt(id: id) != nil else { throw Self.unknown(id) }
        do {
            return try await accepted(try await pipeline.retry(id))
        } catch let error as ReceiptError where error.code == .invalidState {
            throw Problem(.conflict, error.message)
        }
    }

    /// The original app's call: `{"image": "<base64>", "mimeType": "image/jpeg"}` in, the
    /// `analysis` object out, nothing stored.
    private func analyze(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        var request = request
        let body = try await Self.collect(&request, upTo: configuration.maxUploadBytes * 4 / 3 + 4096, reported: configuration.maxUploadBytes)
        guard let json = try? JSONValue.parse([UInt8](buffer: body)) else { throw Problem(.badRequest, "the body is not JSON") }
        guard let encoded = json["image"]?.stringValue else { throw Problem(.badRequest, "\"image\" (base64 bytes) is missing") }
        guard let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
            throw Problem(.badRequest, "\"image\" is not base64")
        }
        try Self.checkFormat(data)
        try checkPixels(data, file: "upload")
        if request.uri.queryParameters.get("store") == "true" {
            // Stored as an upload would be: the analysis when it is done within the wait limit,
            // else 202 and where its record will be.
            let receipt = try await pipeline.submit(imageData: data, filename: "analyze")
            guard let done = try await finished(receipt.id, within: configuration.maxWaitSeconds) else { return try await accepted(receipt) }
            guard let analysis = done.analysis else {
                throw Problem(.unprocessableContent, (done.lastError ?? "the image could not be read").oneLine)
            }
            var response = Self.json(analysis.json)
            response.headers[.location] = Self.location(receipt.id)
            return response
        }
        do {
            let processed = try await processor.process(imageData: data, displayPath: "upload")
            return Self.json(processed.analysis.json)
        } catch let error as ReceiptError {
            // A pixel bomb, a broken or encrypted file: the request was understood, the content cannot be read.
            throw Problem(.unprocessableContent, error.message)
        }
    }

    // MARK: Helpers

    private func imageBody(_ request: Request, _ context: BasicRequestContext) async throws -> (Data, String) {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > configuration.maxUploadBytes {
            throw Self.tooLarge(configuration.maxUploadBytes)
        }
        var request = request
        let body = try await Self.collect(&request, upTo: configuration.maxUploadBytes + 64 * 1024, reported: configuration.maxUploadBytes)
        let type = request.headers[.contentType] ?? ""
        let bytes: Data, filename: String
        if type.lowercased().hasPrefix("multipart/form-data") {
            let part = try Multipart.file(in: Data(buffer: body), contentType: type)
            (bytes, filename) = (part.data, part.filename ?? "upload")
        } else {
            (bytes, filename) = (Data(buffer: body), "upload")
        }
        guard !bytes.isEmpty else { throw Problem(.badRequest, "the upload is empty") }
        guard bytes.count <= configuration.maxUploadBytes else { throw Self.tooLarge(configuration.maxUploadBytes) }
        try Self.checkFormat(bytes)
        try checkPixels(bytes, file: filename)
        return (bytes, filename)
    }

    /// The body, read up to `limit` bytes (the image limit plus room for multipart or base64);
    /// beyond it a 413 naming the image limit, `reported`.
    private static func collect(_ request: inout Request, upTo limit: Int, reported: Int) async throws -> ByteBuffer {
        do {
            return try await request.collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge(reported)
        }
    }

    /// A pixel bomb (a small file claiming gigapixels) is refused with 422 before it is stored.
    private func checkPixels(_ data: Data, file: String) throws {
        guard let engine = (processor as? ReceiptProcessor)?.engine else { return }
        do {
            try engine.checkPixelLimit(data, file: file)
        } catch let error as ReceiptError {
            throw Problem(.unprocessableContent, error.message)
        }
    }

    private static func checkFormat(_ data: Data) throws {
        guard ImageFormat.sniff(data) != nil else {
            throw Problem(.unsupportedMediaType, "not a receipt image or PDF: unrecognised format (supported: \(ImageFormat.supportedNames))")
        }
    }

    private func waitSeconds(_ request: Request) throws -> Double? {
        guard let text = request.uri.queryParameters.get("wait") else { return nil }
        guard let seconds = Double(text), seconds >= 0 else { throw Problem(.badRequest, "wait must be a number of seconds") }
        return min(seconds, configuration.maxWaitSeconds)
    }

    private func id(_ context: BasicRequestContext, _ kind: String = "receipt") throws -> UUID {
        let text = context.parameters.get("id") ?? ""
        guard let id = UUID(uuidString: text) else { throw Problem(.notFound, "no \(kind) with id '\(text)'") }
        return id
    }

    private static func unknown(_ id: UUID) -> Problem {
        Problem(.notFound, "no receipt with id \(id.uuidString.lowercased())")
    }

    private static func tooLarge(_ limit: Int) -> Problem {
        Problem(.contentTooLarge, String(format: "the upload is larger than %.3g MB (--max-upload-mb)", Double(limit) / 1_048_576))
    }

    private func recordJSON(_ receipt: Receipt) async throws -> JSONValue {
        let expense = try await pipeline.expense(forReceipt: receipt.id)
        return ReceiptOutcome(source: receipt.filePath, receipt: receipt, expense: expense, isDuplicate: false).record.json
    }

    private func recordResponse(_ receipt: Receipt, status: HTTPResponse.Status) async throws -> Response {
        var response = Self.json(try await recordJSON(receipt))
        response.status = status
        return response
    }

    static func json(_ object: [String: JSONValue]) -> Response {
        json(JSONValue.object(object.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    static func json(_ value: JSONValue) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: value.serialized() + "\n")))
    }
}
