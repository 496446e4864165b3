import Foundation

/// The expenses for an accountant: one record per expense with its deduction and its receipt
/// file. `receipts export` and `GET /v1/expenses/export.csv` print exactly these records, with
/// these columns (money as `Money.format` prints it, by the currency's minor units).
public enum ExpenseExport {
    public static let columns = ["date", "vendor", "category", "amount", "currency", "taxAmount", "taxDeductiblePercentage",
                                 "deductibleAmount", "status", "needsReview", "possibleDuplicateOf", "receiptFile",
                                 "receiptId", "expenseId", "isTaxDeductible", "corrections", "owner", "confirmedBy"]

    /// One expense's record. `deductibleAmount` is 0 for an expense that is not tax deductible
    /// (`Expense.deductibleAmount`); `corrections` is what the analyzer had drafted for each field a
    /// person corrected (null when none was).
    public static func record(_ e: Expense, receiptFile: String?, owner: String? = nil, corrections: JSONValue) -> JSONValue {
        .object([
            ("date", .optionalString(e.date?.description)),
            ("vendor", .string(e.description)),
            ("category", .string(e.category)),
            ("amount", .money(e.amount, currency: e.currency)),
            ("currency", .optionalString(e.currency)),
            ("taxAmount", .money(e.taxAmount, currency: e.currency)),
            ("taxDeductiblePercentage", .decimal(e.taxDeductiblePercentage)),
            ("deductibleAmount", .money(e.deductibleAmount, currency: e.currency)),
            ("status", .string(e.status.rawValue)),
            ("needsReview", .bool(e.needsReview)),
            ("possibleDuplicateOf", .optionalString(e.possibleDuplicateOf?.uuidString.lowercased())),
            ("receiptFile", .optionalString(receiptFile)),
            ("receiptId", .string(e.receiptId.uuidString.lowercased())),
            ("expenseId", .string(e.id.uuidString.lowercased())),
            ("isTaxDeductible", .bool(e.isTaxDeductible)),
            ("corrections", corrections == .object([]) ? .null : corrections),
            ("owner", .optionalString(owner)),
            ("confirmedBy", .optionalString(e.confirmedBy)),
        ])
    }

    /// One listed expense's record.
    public static func record(_ listing: ExpenseListing) -> JSONValue {
        record(listing.expense, receiptFile: listing.receiptFile, owner: listing.owner, corrections: listing.corrections)
    }

    /// The records of the expenses its principal may see that `query` selects, by date (all of them, in memory:
    /// for a few; `pages` streams any number).
    public static func records(_ query: ExpenseQuery, from store: ScopedStore) async throws -> [JSONValue] {
        var records: [JSONValue] = []
        for try await page in pages(query, from: store) { records += page }
        return records
    }

    /// The records of the expenses its principal may see that `query` selects, by date, `batch` at a time: each
    /// page is read from the store when the one before has been taken (the store's keyset paging),
    /// so an export of any size holds one page in memory. `query.limit` bounds the whole. `first`:
    /// the size of the first page, when smaller (what a client waits for before its first byte).
    public static func pages(_ query: ExpenseQuery, from store: ScopedStore, batch: Int = 1000,
                             first: Int? = nil) -> Pages {
        Pages(query: query, store: store, batch: max(1, batch), first: max(1, min(first ?? batch, batch)))
    }

    public struct Pages: AsyncSequence, Sendable {
        public typealias Element = [JSONValue]
        let query: ExpenseQuery
        let store: ScopedStore
        let batch: Int
        let first: Int

        public func makeAsyncIterator() -> Iterator {
            Iterator(query: query, store: store, batch: batch, pageSize: first, left: query.limit ?? Int.max)
        }

        public struct Iterator: AsyncIteratorProtocol, Sendable {
            var query: ExpenseQuery
            let store: ScopedStore
            let batch: Int
            /// The size of the page to read next (the first may be smaller than `batch`).
            var pageSize: Int
            var left: Int
            var done = false

            public mutating func next() async throws -> [JSONValue]? {
                guard !done, left > 0 else { return nil }
                var page = query
                page.limit = Swift.min(pageSize, left)
                pageSize = batch
                let listings = try await store.expenseListings(page)
                left -= listings.count
                if listings.count < page.limit! { done = true }
                guard let last = listings.last else { return nil }
                query.after = last.expense.id
                return listings.map(ExpenseExport.record)
            }
        }
    }

    /// The records as CSV: the header row, then a row per expense.
    public static func csv(_ records: [JSONValue]) -> String {
        CSV.document(records, columns: columns)
    }

    /// The CSV header row (CRLF-ended), for a CSV written a page at a time (`csvRows`).
    public static var csvHeader: String { columns.map(CSV.field).joined(separator: ",") + "\r\n" }

    /// A page of records as CSV rows (CRLF-ended), without the header.
    public static func csvRows(_ records: [JSONValue]) -> String {
        var out = ""
        for record in records { out += columns.map { CSV.field(CSV.text(record[$0] ?? .null)) }.joined(separator: ",") + "\r\n" }
        return out
    }
}
