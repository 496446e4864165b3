import Foundation
import ReceiptModel
import GRDB

extension SQLiteReceiptStore {
    public func insert(_ receipt: Receipt, imagePath: String?, deduplicate: Bool) async throws -> (receipt: Receipt, isNew: Bool) {
        let ownership = receipt.ownership
        let location = self.location
        return try await write { db in
            try Self.checkOwnership(ownership, db, file: location)
            if deduplicate, let hash = receipt.contentHash,
               let row = try Row.fetchOne(db, sql: Self.duplicateLookup, arguments: [ownership.owner, hash, ownership.externalUser]) {
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

    /// The receipt an owner (and end user) already has of some bytes. By the bytes' index (a
    /// handful of rows at most): left to itself, SQLite walks the owner's index in createdAt order,
    /// every receipt of theirs on every submission.
    package static let duplicateLookup = """
        SELECT * FROM receipt INDEXED BY receipt_on_contentHash
        WHERE owner = ? AND contentHash = ? AND externalUser IS ? ORDER BY createdAt, rowid LIMIT 1
        """

    /// A receipt's owner must be a user, and its group a group: `.notFound` otherwise.
    package static func checkOwnership(_ ownership: Ownership, _ db: Database, file: String) throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM account WHERE name = ?)", arguments: [ownership.owner]) == true else {
            throw ReceiptError(.notFound, "no user named '\(ownership.owner)' (see `receipts user list`)", file: file)
        }
        if let group = ownership.group,
           try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM account_group WHERE name = ?)", arguments: [group]) != true {
            throw ReceiptError(.notFound, "no group named '\(group)' (see `receipts group list`)", file: file)
        }
    }

    public func receipt(id: UUID, in scope: Scope) async throws -> Receipt? {
        let (condition, arguments) = StoreRows.condition(scope)
        return try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ? AND \(condition)", arguments: [StoreRows.text(id)] + arguments)
                .map(StoreRows.receipt)
        }
    }

    public func receipt(idPrefix prefix: String, in scope: Scope) async throws -> Receipt {
        let needle = prefix.trimmingCharacters(in: .whitespaces).lowercased()
        let location = self.location
        guard needle.count >= 4, needle.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw ReceiptError(.notFound, "'\(prefix)' is not a receipt id (give the id or its first 4+ characters, see `receipts list`)",
                             file: location)
        }
        let (condition, arguments) = StoreRows.condition(scope)
        let rows = try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM receipt WHERE id LIKE ? ESCAPE '\\' AND \(condition) LIMIT 2",
                             arguments: [needle + "%"] + arguments).map(StoreRows.receipt)
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

    public func receipt(contentHash: String, in scope: Scope) async throws -> Receipt? {
        let (condition, arguments) = StoreRows.condition(scope)
        return try await read { db in
            try Row.fetchOne(db, sql: """
                SELECT * FROM receipt INDEXED BY receipt_on_contentHash WHERE contentHash = ? AND \(condition)
                ORDER BY createdAt, rowid LIMIT 1
                """,
                             arguments: [contentHash] + arguments).map(StoreRows.receipt)
        }
    }

    public func imagePath(ofReceipt id: UUID, in scope: Scope) async throws -> String? {
        let (condition, arguments) = StoreRows.condition(scope)
        return try await read { db in
            try String.fetchOne(db, sql: "SELECT imagePath FROM receipt WHERE id = ? AND \(condition)", arguments: [StoreRows.text(id)] + arguments)
        }
    }

    public func expense(id: UUID, in scope: Scope) async throws -> Expense? {
        try await read { db in try Self.expense(id: id, in: scope, db) }
    }

    /// The expense with this id whose receipt is in `scope`.
    package static func expense(id: UUID, in scope: Scope, _ db: Database) throws -> Expense? {
        let (condition, arguments) = StoreRows.condition(scope, alias: "r")
        return try Row.fetchOne(db, sql: "SELECT e.* FROM expense e JOIN receipt r ON r.id = e.receiptId WHERE e.id = ? AND \(condition)",
                                arguments: [StoreRows.text(id)] + arguments).map(StoreRows.expense)
    }

    public func expense(receiptId: UUID, in scope: Scope) async throws -> Expense? {
        let (condition, arguments) = StoreRows.condition(scope, alias: "r")
        return try await read { db in
            try Row.fetchOne(db, sql: "SELECT e.* FROM expense e JOIN receipt r ON r.id = e.receiptId WHERE e.receiptId = ? AND \(condition)",
                             arguments: [StoreRows.text(receiptId)] + arguments).map(StoreRows.expense)
        }
    }

    public func statusCounts(in scope: Scope) async throws -> [OCRStatus: Int] {
        let (condition, arguments) = StoreRows.condition(scope)
        return try await read { db in
            var counts: [OCRStatus: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT ocrStatus, count(*) AS n FROM receipt WHERE \(condition) GROUP BY ocrStatus",
                                        arguments: arguments) {
                if let status = OCRStatus(rawValue: row["ocrStatus"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }
}
