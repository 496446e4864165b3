import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// A receipt's record, as `receipts serve` answers it (`GET /v1/receipts/{id}`).
public typealias Record = Components.Schemas.Record
/// A drafted or confirmed expense.
public typealias Expense = Components.Schemas.Expense

/// The calls an app makes most of `receipts serve`, over the client generated from its OpenAPI
/// document (`client` makes every other call the document describes, with the same token).
///
/// ```swift
/// let receipts = ReceiptsAPI(serverURL: URL(string: "https://nas.local:8443")!, token: "rcp_…")
/// let record = try await receipts.upload(photo, filename: "IMG_0042.jpg", wait: 20)
/// ```
///
/// Every error the server answers (an RFC 9457 problem document) is thrown as a `ReceiptsError`:
/// its `kind` says what to do (sign in again, not found, try again later…), its `detail` the
/// server's one line.
public struct ReceiptsAPI: Sendable {
    /// The generated client, with this API's token (and end user) on every request.
    public let client: Client

    /// - Parameters:
    ///   - serverURL: where `receipts serve` listens (`https://nas.local:8443`).
    ///   - token: an API token (`receipts token create --name NAME --user USER`).
    ///   - externalUser: for a backend's service token (scope act-as): the end user each request
    ///     acts for (`Receipts-External-User`).
    ///   - session: the URLSession requests go through.
    ///   - middlewares: the app's own (logging, metrics), run first on each request, last on its answer.
    public init(serverURL: URL, token: String, externalUser: String? = nil, session: URLSession = .shared,
                middlewares: [any ClientMiddleware] = []) {
        client = Client(serverURL: serverURL, transport: URLSessionTransport(configuration: .init(session: session)),
                        middlewares: [EntityTags()] + middlewares + [Credentials(token: token, externalUser: externalUser), Problems()])
    }

    /// Uploads an image (JPEG, PNG, HEIC, PDF…) and, with `wait`, waits up to that many seconds for it
    /// to be read (the server holds the request at most its `--max-wait`). The same bytes return the
    /// same receipt. A record whose `ocrStatus` is still `pending` or `processing` was not read yet:
    /// `receipt(id:)` later has it.
    public func upload(_ data: Data, filename: String, wait: Double? = nil) async throws -> Record {
        let output = try await call {
            try await client.uploadReceipt(query: .init(wait: wait, filename: filename),
                                           body: data.starts(with: Array("%PDF".utf8)) ? .pdf(HTTPBody(data)) : .image_Ast_(HTTPBody(data)))
        }
        switch output {
        case .ok(let answer): return try answer.body.json
        case .accepted(let answer): return try answer.body.json
        default: throw ReceiptsError.unexpected(output)
        }
    }

    /// One receipt's record.
    public func receipt(id: String) async throws -> Record {
        let output = try await call { try await client.getReceipt(path: .init(id: id)) }
        guard case .ok(let answer) = output else { throw ReceiptsError.unexpected(output) }
        return try answer.body.json
    }

    /// The receipts the token may see, newest first, every page: with `needsReview`, only those
    /// whose expense is flagged for review (true) or not (false).
    public func receipts(needsReview: Bool? = nil) async throws -> [Record] {
        var records: [Record] = [], after: String?
        repeat {
            let output = try await call {
                try await client.listReceipts(query: .init(needsReview: needsReview, limit: 500, after: after))
            }
            guard case .ok(let answer) = output else { throw ReceiptsError.unexpected(output) }
            let page = try answer.body.json
            records += page.receipts
            after = page.next
        } while after != nil
        return records
    }

    /// What a person corrected before confirming: only the fields given are changed. A date is
    /// `YYYY-MM-DD`, a currency ISO 4217, a category one of the server's taxonomy.
    public struct Corrections: Sendable {
        public var vendor: String?
        public var date: String?
        public var amount: Decimal?
        public var taxAmount: Decimal?
        public var currency: String?
        public var category: String?

        public init(vendor: String? = nil, date: String? = nil, amount: Decimal? = nil, taxAmount: Decimal? = nil,
                    currency: String? = nil, category: String? = nil) {
            (self.vendor, self.date, self.amount, self.taxAmount, self.currency, self.category) = (vendor, date, amount, taxAmount, currency, category)
        }
    }

    /// Corrects an expense and confirms it, over the version read first (`If-Match` with its ETag):
    /// when someone else changed it in between, `ReceiptsError` with `kind == .changedMeanwhile`
    /// (412) and nothing is saved.
    @discardableResult
    public func confirm(expenseId: String, corrections: Corrections = Corrections()) async throws -> Expense {
        let current = try await call { try await client.getExpense(path: .init(id: expenseId)) }
        guard case .ok(let read) = current else { throw ReceiptsError.unexpected(current) }
        let etag = read.headers.eTag
        // Money goes as a JSON number: the shortest decimal that reads back as the same Double,
        // which is the amount given for every amount of at most 15 significant digits.
        let number = { (amount: Decimal) in NSDecimalNumber(decimal: amount).doubleValue }
        let body = Operations.CorrectExpense.Input.Body.JsonPayload(
            date: corrections.date, amount: corrections.amount.map(number), taxAmount: corrections.taxAmount.map(number),
            currency: corrections.currency, category: corrections.category, vendor: corrections.vendor, status: .confirmed)
        let output = try await call {
            try await client.correctExpense(path: .init(id: expenseId), headers: .init(ifMatch: etag), body: .json(body))
        }
        guard case .ok(let answer) = output else { throw ReceiptsError.unexpected(output) }
        return try answer.body.json.expense
    }

    /// The expenses as CSV (what `receipts export --format csv` prints), from and to a receipt date
    /// (`YYYY-MM-DD`, inclusive; nil: no bound).
    public func export(from: String? = nil, to: String? = nil) async throws -> String {
        let output = try await call {
            try await client.exportExpensesCSV(query: .init(from: from, to: to))
        }
        guard case .ok(let answer) = output else { throw ReceiptsError.unexpected(output) }
        return try await String(collecting: answer.body.csv, upTo: 64 << 20)
    }

    /// Runs a call of `client`, throwing the server's problem document as the `ReceiptsError` it is
    /// (the runtime wraps what the middleware throws): `try await receipts.call { try await receipts.client.getMe() }`.
    public func call<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ClientError {
            if let problem = error.underlyingError as? ReceiptsError { throw problem }
            throw ReceiptsError(kind: .transport, status: 0, title: "no answer", detail: String(describing: error.underlyingError))
        }
    }
}

/// What `receipts serve` answered instead of what was asked: its problem document (RFC 9457), or,
/// with `kind == .transport`, why no answer came (the server cannot be reached).
public struct ReceiptsError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// 400, 413, 415, 422: the request or the upload is refused as it is (not an image, too large…).
        case invalid
        /// 401: no token, or one unknown, revoked or expired.
        case unauthorized
        /// 403: the token may not do this (a scope it lacks, a group it only views).
        case forbidden
        /// 404: no such receipt or expense, or one the token may not see.
        case notFound
        /// 409: not now (a confirmed receipt to delete, a receipt that has not failed to retry).
        case conflict
        /// 412: the expense changed since it was read; read it again.
        case changedMeanwhile
        /// 429: too many requests, or too much waiting to be read; try again after `retryAfter`.
        case tooManyRequests
        /// 503: the server's store cannot be reached now; try again after `retryAfter`.
        case unavailable
        /// Another status.
        case other
        /// No answer: the server cannot be reached, or its answer was not HTTP.
        case transport
    }

    public var kind: Kind
    /// The HTTP status (0 when no answer came).
    public var status: Int
    public var title: String
    /// The server's one line.
    public var detail: String
    /// Seconds to wait before trying again (429, 503).
    public var retryAfter: Int?

    public init(kind: Kind, status: Int, title: String, detail: String, retryAfter: Int? = nil) {
        (self.kind, self.status, self.title, self.detail, self.retryAfter) = (kind, status, title, detail, retryAfter)
    }

    public var description: String { status > 0 ? "\(status) \(title): \(detail)" : "\(title): \(detail)" }

    static func kind(of status: Int) -> Kind {
        switch status {
        case 400, 413, 415, 422: .invalid
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 409: .conflict
        case 412: .changedMeanwhile
        case 429: .tooManyRequests
        case 503: .unavailable
        default: .other
        }
    }

    /// A success the thin layer does not expect (a status the document lists but this call does not use).
    static func unexpected(_ output: Any) -> ReceiptsError {
        ReceiptsError(kind: .other, status: 0, title: "unexpected answer", detail: String(describing: output))
    }
}

/// Adds the token (and the end user) to every request.
struct Credentials: ClientMiddleware {
    let token: String
    let externalUser: String?

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        if let externalUser { request.headerFields[HTTPField.Name("Receipts-External-User")!] = externalUser }
        return try await next(request, body, baseURL)
    }
}

/// Sends `If-Match` as the ETag it is. The generated code writes a header as a URI component, so the
/// ETag's quotes (`"1f0c…"`) would go as `%221f0c…%22`, which matches no version (412).
struct EntityTags: ClientMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let tag = request.headerFields[.ifMatch], let decoded = tag.removingPercentEncoding { request.headerFields[.ifMatch] = decoded }
        return try await next(request, body, baseURL)
    }
}

/// Turns every answer of 400 or above into the `ReceiptsError` of its problem document.
struct Problems: ClientMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        var data = Data()
        if let responseBody { data = try await Data(collecting: responseBody, upTo: 1 << 20) }
        let problem = try? JSONDecoder().decode(Components.Schemas.Problem.self, from: data)
        throw ReceiptsError(kind: ReceiptsError.kind(of: response.status.code), status: response.status.code,
                            title: problem?.title ?? response.status.reasonPhrase,
                            detail: problem?.detail ?? String(decoding: data.prefix(500), as: UTF8.self),
                            retryAfter: response.headerFields[.retryAfter].flatMap { Int($0) })
    }
}
