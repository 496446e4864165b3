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

    /// The records of the expenses in `scope` that `query` selects, by date.
    public static func records(_ query: ExpenseQuery, in scope: Scope, store: any ReceiptStore) async throws -> [JSONValue] {
        var records: [JSONValue] = []
        for expense in try await store.expenses(query, in: scope) {
            let receipt = try await store.receipt(id: expense.receiptId, in: scope)
            records.append(record(expense, receiptFile: receipt?.filePath, owner: receipt?.ownership.owner,
                                  corrections: try await store.corrections(ofExpense: expense.id, in: scope)))
        }
        return records
    }

    /// The records as CSV: the header row, then a row per expense.
    public static func csv(_ records: [JSONValue]) -> String {
        CSV.document(records, columns: columns)
    }
}
