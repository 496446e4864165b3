import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

extension PostgresReceiptStore {
    public func correct(_ expense: Expense, changed: [(field: String, drafted: JSONValue)], by author: ChangeAuthor, in scope: Scope,
                        now: Date, expectedVersion: String?) async throws -> JSONValue {
        let e = expense
        let changes = changed.map { ($0.field, $0.drafted) }
        return try await transaction { connection in
            // Locked, so two reviewers' corrections of one expense are one after the other.
            let stored = try await connection.query("""
                SELECT \(unescaped: PostgresRows.expenseColumns), e.corrections
                FROM receipts.expense e JOIN receipts.receipt r ON r.id = e.receipt_id
                WHERE e.id = \(e.id) AND \(scope: scope, alias: "r") FOR UPDATE OF e
                """, logger: self.logger).collect()
            guard let row = stored.first else { throw ReceiptError(.notFound, "no expense with id \(e.id.uuidString.lowercased())") }
            let current = try PostgresRows.expense(row)
            if let expectedVersion, current.etag != expectedVersion {
                throw ReceiptError(.preconditionFailed, "expense \(e.id.uuidString.lowercased()) was changed since it was read")
            }
            let text = try row.makeRandomAccess()["corrections"].decode(String?.self)
            var corrections = text.flatMap { try? JSONValue.parse($0) }?.objectValue ?? []
            for (field, drafted) in changes where !corrections.contains(where: { $0.0 == field }) {
                corrections.append((field, drafted))
            }
            let json = JSONValue.object(corrections)
            // Who confirmed it: the one who made it confirmed; kept while it stays so; gone when it
            // goes back to a draft.
            let confirming = e.status == .confirmed && current.status != .confirmed
            let confirmedBy = e.status == .confirmed ? (confirming ? author.user : current.confirmedBy) : nil
            try await connection.query("""
                UPDATE receipts.expense SET date = \(e.date?.description)::date, amount = \(PostgresRows.money(e.amount))::numeric,
                    currency = \(e.currency), tax_amount = \(PostgresRows.money(e.taxAmount))::numeric, category = \(e.category),
                    description = \(e.description), is_tax_deductible = \(e.isTaxDeductible),
                    tax_deductible_percentage = \(e.taxDeductiblePercentage.plainString)::numeric, status = \(e.status.rawValue),
                    needs_review = \(e.needsReview), last_modified = \(now), corrections = \(json.serialized()),
                    confirmed_by = \(confirmedBy)
                WHERE id = \(e.id)
                """, logger: self.logger)
            if !changes.isEmpty || confirming {
                try await connection.query("""
                    INSERT INTO receipts.expense_change (expense_id, at, user_name, token_name, fields, confirmed)
                    VALUES (\(e.id), \(now), \(author.user), \(author.token), \(changes.map(\.0)), \(confirming))
                    """, logger: self.logger)
            }
            // What the expense, as a person left it, teaches the memory of shops (a draft: nothing).
            try await Self.relearn(receiptId: current.receiptId, now: now, connection, self.logger)
            return json
        }
    }

    public func corrections(ofExpense id: UUID, in scope: Scope) async throws -> JSONValue {
        let stored = try await rows("""
            SELECT e.corrections FROM receipts.expense e JOIN receipts.receipt r ON r.id = e.receipt_id
            WHERE e.id = \(id) AND \(scope: scope, alias: "r")
            """).first?.decode(String?.self)
        return stored.flatMap { try? JSONValue.parse($0) } ?? .object([])
    }

    public func history(ofExpense id: UUID, in scope: Scope) async throws -> [ExpenseChange] {
        try await rows("""
            SELECT c.at, c.user_name, c.token_name, c.fields, c.confirmed
            FROM receipts.expense_change c JOIN receipts.expense e ON e.id = c.expense_id JOIN receipts.receipt r ON r.id = e.receipt_id
            WHERE c.expense_id = \(id) AND \(scope: scope, alias: "r") ORDER BY c.id
            """).map { row in
            let (at, user, token, fields, confirmed) = try row.decode((Date, String, String?, [String], Bool).self)
            return ExpenseChange(at: at, author: ChangeAuthor(user: user, token: token), fields: fields, confirmed: confirmed)
        }
    }

    public func deleteReceipt(id: UUID, in scope: Scope, force: Bool) async throws -> String? {
        try await transaction { connection in
            guard let row = try await connection.query("""
                SELECT r.image_ref FROM receipts.receipt r WHERE r.id = \(id) AND \(scope: scope, alias: "r") FOR UPDATE OF r
                """, logger: self.logger).collect().first else {
                throw ReceiptError(.notFound, "no receipt with id \(id.uuidString.lowercased())")
            }
            if !force, try await !connection.query(
                "SELECT 1 FROM receipts.expense WHERE receipt_id = \(id) AND status = 'confirmed' FOR UPDATE", logger: self.logger).collect().isEmpty {
                throw ReceiptError(.invalidState,
                                   "receipt \(id.uuidString.lowercased()) has a confirmed expense (a person's record); delete it with force to remove both")
            }
            let image = try row.decode(String?.self)
            // What its confirmation taught the memory of shops goes with it.
            try await Self.forget(receiptId: id, connection, self.logger)
            // The expense (with its history) and idempotency keys go with it (ON DELETE CASCADE).
            try await connection.query("DELETE FROM receipts.receipt WHERE id = \(id)", logger: self.logger)
            guard let image else { return nil }
            // Another receipt, or a picture of a receipt of several, may keep the same bytes.
            let shared = try await connection.query("""
                SELECT EXISTS (SELECT 1 FROM receipts.receipt WHERE image_ref = \(image))
                    OR EXISTS (SELECT 1 FROM receipts.receipt_picture WHERE image_ref = \(image))
                """,
                                                    logger: self.logger).collect().first?.decode(Bool.self) ?? false
            if shared { return nil }
            if image.hasPrefix(PostgresImageRepository.prefix) {
                let hash = String(image.dropFirst(PostgresImageRepository.prefix.count))
                try await connection.query("DELETE FROM receipts.image WHERE hash = \(hash)", logger: self.logger)
                return nil
            }
            return image
        }
    }
}
