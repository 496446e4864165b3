import Foundation
import GRDB
import ReceiptModel

extension SQLiteReceiptStore {
    public func correct(_ expense: Expense, changed: [(field: String, drafted: JSONValue)], by author: ChangeAuthor, in scope: Scope,
                        now: Date, expectedVersion: String?) async throws -> JSONValue {
        let e = expense
        return try await write { db in
            guard let current = try Self.expense(id: e.id, in: scope, db) else {
                throw ReceiptError(.notFound, "no expense with id \(StoreRows.text(e.id))")
            }
            if let expectedVersion {
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
            let confirming = e.status == .confirmed && current.status != .confirmed
            let confirmedBy = e.status == .confirmed ? (confirming ? author.user : current.confirmedBy) : nil
            try db.execute(
                sql: """
                    UPDATE expense SET date = ?, amount = ?, currency = ?, taxAmount = ?, category = ?, description = ?,
                        isTaxDeductible = ?, taxDeductiblePercentage = ?, status = ?, needsReview = ?, lastModified = ?,
                        corrections = ?, confirmedBy = ?
                    WHERE id = ?
                    """,
                arguments: [e.date?.description, StoreRows.money(e.amount), e.currency, StoreRows.money(e.taxAmount), e.category,
                            e.description, e.isTaxDeductible, e.taxDeductiblePercentage.plainString, e.status.rawValue,
                            e.needsReview, now, json.serialized(), confirmedBy, StoreRows.text(e.id)])
            guard db.changesCount == 1 else { throw ReceiptError(.notFound, "no expense with id \(StoreRows.text(e.id))") }
            if !changed.isEmpty || confirming {
                try db.execute(sql: """
                    INSERT INTO expense_change (expenseId, at, userName, tokenName, fields, confirmed) VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [StoreRows.text(e.id), now, author.user, author.token,
                                     JSONValue.array(changed.map { .string($0.field) }).serialized(), confirming])
            }
            // What the expense, as a person left it, teaches the memory of shops (a draft: nothing).
            try Self.relearn(receiptId: current.receiptId, now: now, db)
            return json
        }
    }

    public func corrections(ofExpense id: UUID, in scope: Scope) async throws -> JSONValue {
        let (condition, arguments) = StoreRows.condition(scope, alias: "r")
        return try await read { db in
            let stored = try String.fetchOne(db, sql: """
                SELECT e.corrections FROM expense e JOIN receipt r ON r.id = e.receiptId WHERE e.id = ? AND \(condition)
                """, arguments: [StoreRows.text(id)] + arguments)
            return stored.flatMap { try? JSONValue.parse($0) } ?? .object([])
        }
    }

    public func history(ofExpense id: UUID, in scope: Scope) async throws -> [ExpenseChange] {
        let (condition, arguments) = StoreRows.condition(scope, alias: "r")
        return try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT c.* FROM expense_change c JOIN expense e ON e.id = c.expenseId JOIN receipt r ON r.id = e.receiptId
                WHERE c.expenseId = ? AND \(condition) ORDER BY c.id
                """, arguments: [StoreRows.text(id)] + arguments).map { row in
                ExpenseChange(at: row["at"], author: ChangeAuthor(user: row["userName"], token: row["tokenName"]),
                              fields: (try? JSONValue.parse(row["fields"] as String))?.arrayValue?.compactMap(\.stringValue) ?? [],
                              confirmed: row["confirmed"])
            }
        }
    }

    public func deleteReceipt(id: UUID, in scope: Scope, force: Bool) async throws -> String? {
        let (condition, arguments) = StoreRows.condition(scope)
        return try await write { db in
            let idText = StoreRows.text(id)
            guard let row = try Row.fetchOne(db, sql: "SELECT imagePath FROM receipt WHERE id = ? AND \(condition)",
                                             arguments: [idText] + arguments) else {
                throw ReceiptError(.notFound, "no receipt with id \(idText)")
            }
            if !force, try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM expense WHERE receiptId = ? AND status = 'confirmed')",
                                         arguments: [idText]) == true {
                throw ReceiptError(.invalidState, "receipt \(idText) has a confirmed expense (a person's record); delete it with force to remove both")
            }
            let image: String? = row["imagePath"]
            // What its confirmation taught the memory of shops goes with it.
            try Self.forget(receiptId: id, db)
            try db.execute(sql: "DELETE FROM idempotency_key WHERE receiptId = ?", arguments: [idText])
            try db.execute(sql: "DELETE FROM expense WHERE receiptId = ?", arguments: [idText])
            try db.execute(sql: "DELETE FROM receipt WHERE id = ?", arguments: [idText])
            guard let image else { return nil }
            // Another receipt, or a picture of a receipt of several, may keep the same bytes.
            let shared = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM receipt WHERE imagePath = ?) OR EXISTS (SELECT 1 FROM receipt_picture WHERE imagePath = ?)
                """, arguments: [image, image]) ?? false
            return shared ? nil : image
        }
    }
}
