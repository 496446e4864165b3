import Foundation
import ReceiptModel
import GRDB

extension SQLiteReceiptStore {
    public func insert(_ receipt: Receipt, imagePath: String?, deduplicate: Bool) async throws -> (receipt: Receipt, isNew: Bool) {
        try await write { db in
            if deduplicate, let hash = receipt.contentHash,
               let row = try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE contentHash = ? ORDER BY createdAt, rowid LIMIT 1",
                                          arguments: [hash]) {
                return (StoreRows.receipt(row), false)
            }
            try StoreRows.insert(receipt, imagePath: imagePath, db)
            let stored = try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?",
                                          arguments: [StoreRows.text(receipt.id)]).map(StoreRows.receipt)
            // A receipt stored failed (its file could not be read) is finished from the start.
            if receipt.ocrStatus == .failed {
                try Self.recordWebhookEvent(stored ?? receipt, expense: nil, now: receipt.updatedAt, db)
            }
            return (stored ?? receipt, true)
        }
    }

    public func receipt(id: UUID) async throws -> Receipt? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?", arguments: [StoreRows.text(id)])
                .map(StoreRows.receipt)
        }
    }

    public func receipt(idPrefix prefix: String) async throws -> Receipt {
        let needle = prefix.trimmingCharacters(in: .whitespaces).lowercased()
        let location = self.location
        guard needle.count >= 4, needle.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw ReceiptError(.notFound, "'\(prefix)' is not a receipt id (give the id or its first 4+ characters, see `receipts list`)",
                             file: location)
        }
        let rows = try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM receipt WHERE id LIKE ? ESCAPE '\\' LIMIT 2",
                             arguments: [needle + "%"]).map(StoreRows.receipt)
        }
        if rows.count > 1 {
            throw ReceiptError(.ambiguousId, "more than one receipt id starts with '\(prefix)'; give more characters",
                             file: location)
        }
        guard let found = rows.first else {
            throw ReceiptError(.notFound, "no receipt with id '\(prefix)' (see `receipts list`)", file: location)
        }
        return found
    }

    public func receipt(contentHash: String) async throws -> Receipt? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE contentHash = ? ORDER BY createdAt, rowid LIMIT 1",
                             arguments: [contentHash]).map(StoreRows.receipt)
        }
    }

    public func imagePath(ofReceipt id: UUID) async throws -> String? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT imagePath FROM receipt WHERE id = ?", arguments: [StoreRows.text(id)])
        }
    }

    public func receipts(_ query: ReceiptQuery) async throws -> [Receipt] {
        var clauses: [String] = []
        var arguments = StatementArguments()
        if let status = query.status {
            clauses.append("ocrStatus = ?")
            arguments += [status.rawValue]
        }
        if let from = query.submittedFrom {
            clauses.append("uploadTimestamp >= ?")
            arguments += [from]
        }
        if let before = query.submittedBefore {
            clauses.append("uploadTimestamp < ?")
            arguments += [before]
        }
        var sql = "SELECT * FROM receipt"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY createdAt DESC, rowid DESC"
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        let finalSQL = sql
        let finalArguments = arguments
        return try await read { db in
            try Row.fetchAll(db, sql: finalSQL, arguments: finalArguments).map(StoreRows.receipt)
        }
    }

    public func expense(id: UUID) async throws -> Expense? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM expense WHERE id = ?", arguments: [StoreRows.text(id)])
                .map(StoreRows.expense)
        }
    }

    public func expense(receiptId: UUID) async throws -> Expense? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM expense WHERE receiptId = ?", arguments: [StoreRows.text(receiptId)])
                .map(StoreRows.expense)
        }
    }

    public func expenses(_ query: ExpenseQuery) async throws -> [Expense] {
        var clauses: [String] = []
        var arguments = StatementArguments()
        if let from = query.from {
            clauses.append("date >= ?")
            arguments += [from.description]
        }
        if let to = query.to {
            clauses.append("date <= ?")
            arguments += [to.description]
        }
        if let category = query.category {
            clauses.append("category = ? COLLATE NOCASE")
            arguments += [category]
        }
        if let status = query.status {
            clauses.append("status = ?")
            arguments += [status.rawValue]
        }
        if let needsReview = query.needsReview {
            clauses.append("needsReview = ?")
            arguments += [needsReview]
        }
        var sql = "SELECT * FROM expense"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY date IS NULL, date, lastModified, rowid"
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        let finalSQL = sql
        let finalArguments = arguments
        return try await read { db in
            try Row.fetchAll(db, sql: finalSQL, arguments: finalArguments).map(StoreRows.expense)
        }
    }

    public func statusCounts() async throws -> [OCRStatus: Int] {
        try await read { db in
            var counts: [OCRStatus: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT ocrStatus, count(*) AS n FROM receipt GROUP BY ocrStatus") {
                if let status = OCRStatus(rawValue: row["ocrStatus"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }
}
