import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

extension PostgresReceiptStore {
    public func insert(_ receipt: Receipt, imagePath: String?, deduplicate: Bool) async throws -> (receipt: Receipt, isNew: Bool) {
        let hasWork = receipt.ocrStatus == .pending
        return try await transaction { connection in
            if let hash = receipt.contentHash {
                // The first receipt of these bytes is their primary copy; the unique index decides
                // (two hosts submitting the same bytes at once: one insert wins, the other sees it).
                let rows = try await connection.query(
                    PostgresRows.insertReceipt(receipt, imageRef: imagePath, primaryCopy: true,
                                               onConflictDoNothing: "(content_hash) WHERE primary_copy"),
                    logger: self.logger).collect()
                if let row = rows.first {
                    if hasWork { try await Self.notify(Self.workChannel, connection, self.logger) }
                    return (try PostgresRows.receipt(row), true)
                }
                if deduplicate {
                    let existing = try await connection.query(
                        "SELECT * FROM receipts.receipt WHERE content_hash = \(hash) AND primary_copy", logger: self.logger).collect()
                    if let row = existing.first { return (try PostgresRows.receipt(row), false) }
                }
            }
            let rows = try await connection.query(
                PostgresRows.insertReceipt(receipt, imageRef: imagePath, primaryCopy: false), logger: self.logger).collect()
            if hasWork { try await Self.notify(Self.workChannel, connection, self.logger) }
            let stored = try PostgresRows.receipt(rows[0])
            // A receipt stored failed (its file could not be read) is finished from the start.
            if stored.ocrStatus == .failed {
                try await Self.recordWebhookEvent(stored, expense: nil, now: receipt.updatedAt, connection, self.logger)
                try await Self.notify(Self.finishedChannel, connection, self.logger)
            }
            return (stored, true)
        }
    }

    static func notify(_ channel: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        // Delivered at commit, to every listening host.
        try await connection.query("SELECT pg_notify(\(channel), '')", logger: logger)
    }

    public func receipt(id: UUID) async throws -> Receipt? {
        try await rows("SELECT * FROM receipts.receipt WHERE id = \(id)").first.map(PostgresRows.receipt)
    }

    public func receipt(idPrefix prefix: String) async throws -> Receipt {
        let needle = prefix.trimmingCharacters(in: .whitespaces).lowercased()
        guard needle.count >= 4, needle.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw ReceiptError(.notFound, "'\(prefix)' is not a receipt id (give the id or its first 4+ characters, see `receipts list`)",
                               file: location)
        }
        let found = try await rows("SELECT * FROM receipts.receipt WHERE id::text LIKE \(needle + "%") LIMIT 2")
            .map(PostgresRows.receipt)
        if found.count > 1 {
            throw ReceiptError(.ambiguousId, "more than one receipt id starts with '\(prefix)'; give more characters", file: location)
        }
        guard let receipt = found.first else {
            throw ReceiptError(.notFound, "no receipt with id '\(prefix)' (see `receipts list`)", file: location)
        }
        return receipt
    }

    public func receipt(contentHash: String) async throws -> Receipt? {
        try await rows("SELECT * FROM receipts.receipt WHERE content_hash = \(contentHash) ORDER BY created_at, seq LIMIT 1")
            .first.map(PostgresRows.receipt)
    }

    public func imagePath(ofReceipt id: UUID) async throws -> String? {
        try await rows("SELECT image_ref FROM receipts.receipt WHERE id = \(id)").first?.decode(String?.self)
    }

    public func receipts(_ query: ReceiptQuery) async throws -> [Receipt] {
        var clauses: [String] = []
        var binds = PostgresBindings()
        if let status = query.status {
            binds.append(status.rawValue)
            clauses.append("ocr_status = $\(binds.count)")
        }
        if let from = query.submittedFrom {
            binds.append(from)
            clauses.append("upload_timestamp >= $\(binds.count)")
        }
        if let before = query.submittedBefore {
            binds.append(before)
            clauses.append("upload_timestamp < $\(binds.count)")
        }
        var sql = "SELECT * FROM receipts.receipt"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY created_at DESC, seq DESC"
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map(PostgresRows.receipt)
    }

    public func expense(id: UUID) async throws -> Expense? {
        try await rows(PostgresQuery(unsafeSQL: "SELECT \(PostgresRows.expenseColumns) FROM receipts.expense WHERE id = $1",
                                     binds: Self.binds(id))).first.map(PostgresRows.expense)
    }

    public func expense(receiptId: UUID) async throws -> Expense? {
        try await rows(PostgresQuery(unsafeSQL: "SELECT \(PostgresRows.expenseColumns) FROM receipts.expense WHERE receipt_id = $1",
                                     binds: Self.binds(receiptId))).first.map(PostgresRows.expense)
    }

    static func binds(_ id: UUID) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(id)
        return binds
    }

    public func expenses(_ query: ExpenseQuery) async throws -> [Expense] {
        var clauses: [String] = []
        var binds = PostgresBindings()
        if let from = query.from {
            binds.append(from.description)
            clauses.append("date >= $\(binds.count)::date")
        }
        if let to = query.to {
            binds.append(to.description)
            clauses.append("date <= $\(binds.count)::date")
        }
        if let category = query.category {
            binds.append(category.lowercased())
            clauses.append("lower(category) = $\(binds.count)")
        }
        if let status = query.status {
            binds.append(status.rawValue)
            clauses.append("status = $\(binds.count)")
        }
        if let needsReview = query.needsReview {
            binds.append(needsReview)
            clauses.append("needs_review = $\(binds.count)")
        }
        var sql = "SELECT \(PostgresRows.expenseColumns) FROM receipts.expense"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY date IS NULL, date, last_modified, seq"
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map(PostgresRows.expense)
    }

    public func statusCounts() async throws -> [OCRStatus: Int] {
        var counts: [OCRStatus: Int] = [:]
        for row in try await rows("SELECT ocr_status, count(*) FROM receipts.receipt GROUP BY ocr_status") {
            let (status, n) = try row.decode((String, Int).self)
            if let status = OCRStatus(rawValue: status) { counts[status] = n }
        }
        return counts
    }
}
