import Foundation
import GRDB
import ReceiptModel

extension SQLiteReceiptStore {
    public func correct(_ expense: Expense, changed: [(field: String, drafted: JSONValue)], now: Date,
                        expectedVersion: String?) async throws -> JSONValue {
        let e = expense
        return try await write { db in
            if let expectedVersion {
                let current = try Row.fetchOne(db, sql: "SELECT * FROM expense WHERE id = ?", arguments: [StoreRows.text(e.id)])
                    .map(StoreRows.expense)
                guard let current else { throw ReceiptError(.notFound, "no expense with id \(StoreRows.text(e.id))") }
                guard current.etag == expectedVersion else {
                    throw ReceiptError(.preconditionFailed, "expense \(StoreRows.text(e.id)) was changed since it was read")
                }
            }
            let stored = try String.fetchOne(db, sql: "SELECT corrections FROM expense WHERE id = ?", arguments: [StoreRows.text(e.id)])
            var corrections = stored.flatMap { try? JSONValue.parse($0) }?.objectValue ?? []
            for change in changed where !corrections.contains(where: { $0.0 == change.field }) {
                corrections.append((change.field, change.drafted))
            }
            let json = JSONValue.object(corrections)
            try db.execute(
                sql: """
                    UPDATE expense SET date = ?, amount = ?, currency = ?, taxAmount = ?, category = ?, description = ?,
                        isTaxDeductible = ?, taxDeductiblePercentage = ?, status = ?, needsReview = ?, lastModified = ?,
                        corrections = ?
                    WHERE id = ?
                    """,
                arguments: [e.date?.description, StoreRows.money(e.amount), e.currency, StoreRows.money(e.taxAmount), e.category,
                            e.description, e.isTaxDeductible, e.taxDeductiblePercentage.plainString, e.status.rawValue,
                            e.needsReview, now, json.serialized(), StoreRows.text(e.id)])
            guard db.changesCount == 1 else { throw ReceiptError(.notFound, "no expense with id \(StoreRows.text(e.id))") }
            return json
        }
    }

    public func corrections(ofExpense id: UUID) async throws -> JSONValue {
        try await read { db in
            let stored = try String.fetchOne(db, sql: "SELECT corrections FROM expense WHERE id = ?", arguments: [StoreRows.text(id)])
            return stored.flatMap { try? JSONValue.parse($0) } ?? .object([])
        }
    }

    public func deleteReceipt(id: UUID, force: Bool) async throws -> String? {
        try await write { db in
            let idText = StoreRows.text(id)
            guard let row = try Row.fetchOne(db, sql: "SELECT imagePath FROM receipt WHERE id = ?", arguments: [idText]) else {
                throw ReceiptError(.notFound, "no receipt with id \(idText)")
            }
            if !force, try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM expense WHERE receiptId = ? AND status = 'confirmed')",
                                         arguments: [idText]) == true {
                throw ReceiptError(.invalidState, "receipt \(idText) has a confirmed expense (a person's record); delete it with force to remove both")
            }
            let image: String? = row["imagePath"]
            try db.execute(sql: "DELETE FROM idempotency_key WHERE receiptId = ?", arguments: [idText])
            try db.execute(sql: "DELETE FROM expense WHERE receiptId = ?", arguments: [idText])
            try db.execute(sql: "DELETE FROM receipt WHERE id = ?", arguments: [idText])
            guard let image else { return nil }
            let shared = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM receipt WHERE imagePath = ?)", arguments: [image]) ?? false
            return shared ? nil : image
        }
    }
}
