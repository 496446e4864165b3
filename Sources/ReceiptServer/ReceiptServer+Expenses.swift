import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit

/// `/v1/expenses`: listing, one expense, the accountant's CSV, and a person's corrections.
extension ReceiptServer {
    /// `GET /v1/expenses`: the expenses of the receipts the caller may see, by date; `next` is the
    /// id to pass as `after` for the next page.
    func expenses(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["from", "to", "category", "status", "needsReview", "limit", "after", "externalUser"])
        let limit = try query.integer("limit", in: 1...500) ?? 100
        var filter = try expenseQuery(query)
        filter.after = try query.id("after")
        // One more than the page: whether there is a next page.
        filter.limit = limit + 1
        let expenses = try await scoped(context).expenses(filter)
        let page = Array(expenses.prefix(limit))
        let next = expenses.count > limit ? page.last.map { JSONValue.string($0.id.uuidString.lowercased()) } ?? .null : .null
        return Self.json(JSONValue.object([("expenses", .array(page.map(\.json))), ("next", next)]))
    }

    /// The expenses as CSV, one row each, for a spreadsheet or an accountant: exactly what
    /// `receipts export --format csv` prints (`ExpenseExport`). Streamed a page at a time as the
    /// client takes it: the first bytes go out at once and the server holds one page, whatever the
    /// number of rows. (A store that fails after the first page ends the body early: the answer's
    /// status was sent already.)
    func exportCSV(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["from", "to", "category", "status", "needsReview", "externalUser"])
        // A first page of 100 rows: the first bytes go out as soon as they are read.
        var pages = ExpenseExport.pages(try expenseQuery(query), from: try scoped(context).records, first: 100).makeAsyncIterator()
        // The first page before the answer starts: a store that cannot be read is a problem document.
        let first = try await pages.next() ?? []
        let logger = self.logger
        return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8",
                                               .contentDisposition: "attachment; filename=\"expenses.csv\""],
                        body: ResponseBody { [pages] writer in
                            var pages = pages
                            try await writer.write(ByteBuffer(string: ExpenseExport.csvHeader + ExpenseExport.csvRows(first)))
                            do {
                                while let page = try await pages.next() {
                                    try await writer.write(ByteBuffer(string: ExpenseExport.csvRows(page)))
                                }
                            } catch {
                                logger.error("Export ended early", metadata: ["error.message": "\(String(describing: error).oneLine)"])
                                throw error
                            }
                            try await writer.finish(nil)
                        })
    }

    private func expenseQuery(_ query: QueryParameters) throws -> ExpenseQuery {
        var filter = ExpenseQuery(from: try query.date("from"), to: try query.date("to"), category: query["category"])
        if let status = query["status"] {
            guard let parsed = ExpenseStatus(rawValue: status) else { throw Problem(.badRequest, "status must be draft or confirmed (got '\(status)')") }
            filter.status = parsed
        }
        filter.needsReview = try query.flag("needsReview")
        filter.externalUser = query["externalUser"]
        return filter
    }

    /// `GET /v1/expenses/{id}`: the expense, its corrections and who made them, with its `ETag`.
    func expense(_ id: UUID, _ context: ReceiptRequestContext) async throws -> Response {
        let mine = try scoped(context)
        guard let expense = try await mine.records.expense(id: id) else { throw Self.unknown(id, "expense") }
        return try await expenseResponse(expense, for: mine)
    }

    private func expenseResponse(_ expense: Expense, for mine: ScopedPipeline) async throws -> Response {
        let corrections = try await mine.records.corrections(ofExpense: expense.id)
        let history = try await mine.records.history(ofExpense: expense.id)
        var response = Self.json(JSONValue.object([("expense", expense.json), ("corrections", corrections),
                                                   ("history", .array(history.map(\.json)))]))
        response.headers[.eTag] = expense.etag
        return response
    }

    /// `PATCH /v1/expenses/{id}`, the review step: a person corrects fields of the drafted expense
    /// (`ExpenseCorrection`: checked against the taxonomy and ISO 4217, money by the one parser)
    /// and confirms it. What the analyzer drafted for each corrected field is kept
    /// (`corrections`). With `If-Match`, only when the expense is still the version the client
    /// read (412 otherwise): two reviewers never overwrite each other silently. Without it, a
    /// correction applies to the expense as stored when it is saved.
    func correctExpense(_ request: Request, _ context: ReceiptRequestContext, _ id: UUID) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let ifMatch = request.headers[.ifMatch]
        let body = try await BoundedBody.collect(request, context: context, limit: 64 * 1024, reported: 64 * 1024,
                                                 what: "the correction", setting: "")
        guard let json = try? JSONValue.parse([UInt8](buffer: body)) else {
            throw Problem(.badRequest, "the body is not JSON: send a JSON object of the fields to change")
        }
        let correction = try ExpenseCorrection(json: json, taxonomy: taxonomy)
        let principal = try context.who()
        let mine = pipeline.scoped(to: principal)
        guard let expense = try await mine.records.expense(id: id) else { throw Self.unknown(id, "expense") }
        _ = try await changeableReceipt(expense.receiptId, context)
        let saved = try await mine.records.correct(expenseId: id, with: correction, taxonomy: taxonomy, ifMatch: ifMatch)
        return try await expenseResponse(saved, for: mine)
    }
}
