import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

extension PostgresReceiptStore {
    public func insert(_ receipt: Receipt, imagePath: String?, deduplicate: Bool) async throws -> (receipt: Receipt, isNew: Bool) {
        let hasWork = receipt.ocrStatus == .pending
        let location = self.location
        return try await transaction { connection in
            do {
                if let hash = receipt.contentHash {
                    // The first receipt of these bytes, of this owner and end user, is their primary
                    // copy; the unique index decides (two hosts submitting the same bytes at once: one
                    // insert wins, the other sees it). Another user's receipt of the same bytes is
                    // neither found nor in the way.
                    let rows = try await connection.query(
                        PostgresRows.insertReceipt(receipt, imageRef: imagePath, primaryCopy: true,
                                                   onConflictDoNothing: PostgresRows.primaryCopyConflict),
                        logger: self.logger).collect()
                    if let row = rows.first {
                        if hasWork { try await Self.notify(Self.workChannel, connection, self.logger) }
                        return (try PostgresRows.receipt(row), true)
                    }
                    if deduplicate {
                        let o = receipt.ownership
                        let existing = try await connection.query("""
                            SELECT * FROM receipts.receipt WHERE owner = \(o.owner) AND coalesce(external_user, '') = \(o.externalUser ?? "")
                                AND content_hash = \(hash) AND primary_copy
                            """, logger: self.logger).collect()
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
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23503" {
                // The owner or the group is not there: the foreign keys say so (and lock the owner
                // until the commit, as `checkOwnership` does) without a query of their own.
                throw Self.missingOwnership(receipt.ownership, error, file: location)
            }
        }
    }

    /// The error for a receipt whose owner (or group) the foreign keys did not find.
    static func missingOwnership(_ ownership: Ownership, _ error: PSQLError, file: String) -> ReceiptError {
        if let group = ownership.group, error.serverInfo?[.constraintName]?.contains("group") == true {
            return ReceiptError(.notFound, "no group named '\(group)' (see `receipts group list`)", file: file)
        }
        return ReceiptError(.notFound, "no user named '\(ownership.owner)' (see `receipts user list`)", file: file)
    }

    /// A receipt's owner must be a user, and its group a group: `.notFound` otherwise (the foreign
    /// keys would refuse it too, but as a database error that names neither). The owner is locked
    /// (`FOR KEY SHARE`) until the caller's transaction ends: a removal of that user waits for the
    /// receipt, then counts it among theirs, instead of failing on the foreign key.
    static func checkOwnership(_ ownership: Ownership, _ connection: PostgresConnection, _ logger: Logger, file: String) async throws {
        let row = try await connection.query("""
            SELECT EXISTS (SELECT 1 FROM receipts.account WHERE name = \(ownership.owner) FOR KEY SHARE),
                   \(ownership.group)::text IS NULL OR EXISTS (SELECT 1 FROM receipts.account_group WHERE name = \(ownership.group))
            """, logger: logger).collect().first
        let (user, group) = try row?.decode((Bool, Bool).self) ?? (false, false)
        guard user else {
            throw ReceiptError(.notFound, "no user named '\(ownership.owner)' (see `receipts user list`)", file: file)
        }
        guard group else {
            throw ReceiptError(.notFound, "no group named '\(ownership.group ?? "")' (see `receipts group list`)", file: file)
        }
    }

    static func notify(_ channel: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        // Delivered at commit, to every listening host.
        try await connection.query("SELECT pg_notify(\(channel), '')", logger: logger)
    }

    public func receipt(id: UUID, in scope: Scope) async throws -> Receipt? {
        try await rows("SELECT * FROM receipts.receipt r WHERE r.id = \(id) AND \(scope: scope, alias: "r")")
            .first.map(PostgresRows.receipt)
    }

    public func receipt(idPrefix prefix: String, in scope: Scope) async throws -> Receipt {
        let needle = prefix.trimmingCharacters(in: .whitespaces).lowercased()
        guard needle.count >= 4, needle.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw ReceiptError(.notFound, "'\(prefix)' is not a receipt id (give the id or its first 4+ characters, see `receipts list`)",
                               file: location)
        }
        let found = try await rows("""
            SELECT * FROM receipts.receipt r WHERE r.id::text LIKE \(needle + "%") AND \(scope: scope, alias: "r") LIMIT 2
            """).map(PostgresRows.receipt)
        if found.count > 1 {
            throw ReceiptError(.ambiguousId, "more than one receipt id starts with '\(prefix)'; give more characters", file: location)
        }
        guard let receipt = found.first else {
            throw ReceiptError(.notFound, "no receipt with id '\(prefix)' (see `receipts list`)", file: location)
        }
        return receipt
    }

    public func receipt(contentHash: String, in scope: Scope) async throws -> Receipt? {
        try await rows("""
            SELECT * FROM receipts.receipt r WHERE r.content_hash = \(contentHash) AND \(scope: scope, alias: "r")
            ORDER BY r.created_at, r.seq LIMIT 1
            """).first.map(PostgresRows.receipt)
    }

    public func imagePath(ofReceipt id: UUID, in scope: Scope) async throws -> String? {
        try await rows("SELECT r.image_ref FROM receipts.receipt r WHERE r.id = \(id) AND \(scope: scope, alias: "r")")
            .first?.decode(String?.self)
    }

    public func expense(id: UUID, in scope: Scope) async throws -> Expense? {
        try await rows("""
            SELECT \(unescaped: PostgresRows.expenseColumns) FROM receipts.expense e JOIN receipts.receipt r ON r.id = e.receipt_id
            WHERE e.id = \(id) AND \(scope: scope, alias: "r")
            """).first.map(PostgresRows.expense)
    }

    public func expense(receiptId: UUID, in scope: Scope) async throws -> Expense? {
        try await rows("""
            SELECT \(unescaped: PostgresRows.expenseColumns) FROM receipts.expense e JOIN receipts.receipt r ON r.id = e.receipt_id
            WHERE e.receipt_id = \(receiptId) AND \(scope: scope, alias: "r")
            """).first.map(PostgresRows.expense)
    }

    static func binds(_ id: UUID) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(id)
        return binds
    }

    public func statusCounts(in scope: Scope) async throws -> [OCRStatus: Int] {
        var counts: [OCRStatus: Int] = [:]
        for row in try await rows("SELECT r.ocr_status, count(*) FROM receipts.receipt r WHERE \(scope: scope, alias: "r") GROUP BY r.ocr_status") {
            let (status, n) = try row.decode((String, Int).self)
            if let status = OCRStatus(rawValue: status) { counts[status] = n }
        }
        return counts
    }
}
