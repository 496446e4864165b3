import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

extension PostgresReceiptStore {
    public func correct(_ expense: Expense, changed: [(field: String, drafted: JSONValue)], now: Date,
                        expectedVersion: String?) async throws -> JSONValue {
        let e = expense
        let changes = changed.map { ($0.field, $0.drafted) }
        return try await transaction { connection in
            let stored = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT \(PostgresRows.expenseColumns), corrections FROM receipts.expense WHERE id = $1 FOR UPDATE",
                              binds: Self.binds(e.id)), logger: self.logger).collect()
            guard let row = stored.first else { throw ReceiptError(.notFound, "no expense with id \(e.id.uuidString.lowercased())") }
            if let expectedVersion, try PostgresRows.expense(row).etag != expectedVersion {
                throw ReceiptError(.preconditionFailed, "expense \(e.id.uuidString.lowercased()) was changed since it was read")
            }
            let text = try row.makeRandomAccess()["corrections"].decode(String?.self)
            var corrections = text.flatMap { try? JSONValue.parse($0) }?.objectValue ?? []
            for (field, drafted) in changes where !corrections.contains(where: { $0.0 == field }) {
                corrections.append((field, drafted))
            }
            let json = JSONValue.object(corrections)
            try await connection.query("""
                UPDATE receipts.expense SET date = \(e.date?.description)::date, amount = \(PostgresRows.money(e.amount))::numeric,
                    currency = \(e.currency), tax_amount = \(PostgresRows.money(e.taxAmount))::numeric, category = \(e.category),
                    description = \(e.description), is_tax_deductible = \(e.isTaxDeductible),
                    tax_deductible_percentage = \(e.taxDeductiblePercentage.plainString)::numeric, status = \(e.status.rawValue),
                    needs_review = \(e.needsReview), last_modified = \(now), corrections = \(json.serialized())
                WHERE id = \(e.id)
                """, logger: self.logger)
            return json
        }
    }

    public func corrections(ofExpense id: UUID) async throws -> JSONValue {
        let stored = try await rows("SELECT corrections FROM receipts.expense WHERE id = \(id)").first?.decode(String?.self)
        return stored.flatMap { try? JSONValue.parse($0) } ?? .object([])
    }

    public func deleteReceipt(id: UUID, force: Bool) async throws -> String? {
        try await transaction { connection in
            guard let row = try await connection.query("SELECT image_ref FROM receipts.receipt WHERE id = \(id) FOR UPDATE",
                                                       logger: self.logger).collect().first else {
                throw ReceiptError(.notFound, "no receipt with id \(id.uuidString.lowercased())")
            }
            if !force, try await !connection.query(
                "SELECT 1 FROM receipts.expense WHERE receipt_id = \(id) AND status = 'confirmed' FOR UPDATE", logger: self.logger).collect().isEmpty {
                throw ReceiptError(.invalidState,
                                   "receipt \(id.uuidString.lowercased()) has a confirmed expense (a person's record); delete it with force to remove both")
            }
            let image = try row.decode(String?.self)
            // The expense and idempotency keys go with it (ON DELETE CASCADE).
            try await connection.query("DELETE FROM receipts.receipt WHERE id = \(id)", logger: self.logger)
            guard let image else { return nil }
            let shared = try await connection.query("SELECT EXISTS (SELECT 1 FROM receipts.receipt WHERE image_ref = \(image))",
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
