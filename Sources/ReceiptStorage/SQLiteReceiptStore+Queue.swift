import Foundation
import ReceiptModel
import GRDB

/// The queue's state changes. Each runs in one IMMEDIATE transaction, so two workers — in this
/// process or another — can never take the same receipt.
extension SQLiteReceiptStore {
    public func claimNext(_ lease: Lease) async throws -> ClaimedJob? {
        try await write { db in
            guard let id = try String.fetchOne(db, sql: """
                SELECT id FROM receipt
                WHERE ocrStatus = 'pending' AND (notBefore IS NULL OR notBefore <= ?)
                ORDER BY createdAt, rowid LIMIT 1
                """, arguments: [lease.now]) else { return nil }
            return try Self.take(id: id, lease, db)
        }
    }

    public func claim(id: UUID, _ lease: Lease) async throws -> ClaimAttempt {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?",
                                             arguments: [StoreRows.text(id)]) else { return .notFound }
            let receipt = StoreRows.receipt(row)
            switch receipt.ocrStatus {
            case .completed, .failed:
                return .finished(receipt)
            case .processing:
                return .leased(receipt, until: row["leaseExpiresAt"])
            case .pending:
                if let notBefore = row["notBefore"] as Date?, notBefore > lease.now {
                    return .notDue(receipt, until: notBefore)
                }
                return .claimed(try Self.take(id: StoreRows.text(id), lease, db))
            }
        }
    }

    private static func take(id: String, _ lease: Lease, _ db: Database) throws -> ClaimedJob {
        try db.execute(sql: """
            UPDATE receipt SET ocrStatus = 'processing', attempts = attempts + 1, leaseOwner = ?,
                leaseExpiresAt = ?, notBefore = NULL, updatedAt = ?
            WHERE id = ? AND ocrStatus = 'pending'
            """, arguments: [lease.holder, lease.expiresAt, lease.now, id])
        let row = try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?", arguments: [id])!
        return ClaimedJob(receipt: StoreRows.receipt(row), imagePath: row["imagePath"])
    }

    public func renew(id: UUID, _ lease: Lease) async throws -> Bool {
        try await write { db in
            try db.execute(sql: """
                UPDATE receipt SET leaseExpiresAt = ?
                WHERE id = ? AND ocrStatus = 'processing' AND leaseOwner = ?
                """, arguments: [lease.expiresAt, StoreRows.text(id), lease.holder])
            return db.changesCount == 1
        }
    }

    public func complete(id: UUID, holder: String, work: CompletedWork, now: Date) async throws -> (Receipt, Expense)? {
        try await write { db in
            let idText = StoreRows.text(id)
            guard try Self.holds(idText, holder, db) else { return nil }
            var expense = work.expense
            expense.receiptId = id
            let ownership = StoreRows.ownership(try Row.fetchOne(db, sql: "SELECT owner, groupName, externalUser, metadata FROM receipt WHERE id = ?",
                                                                 arguments: [idText])!)
            expense.possibleDuplicateOf = try Self.possibleDuplicate(of: expense, work: work, ownership: ownership, db)
            try StoreRows.insert(expense, db)
            try db.execute(sql: """
                UPDATE receipt SET ocrStatus = 'completed', ocrResultJson = ?, ocrText = ?, analyzer = ?,
                    lastError = NULL, expenseId = ?, leaseOwner = NULL, leaseExpiresAt = NULL, notBefore = NULL,
                    updatedAt = ?
                WHERE id = ?
                """, arguments: [work.analysis.json.serialized(), work.ocrText, work.analysis.analyzer,
                                 StoreRows.text(expense.id), now, idText])
            let receipt = StoreRows.receipt(try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?",
                                                              arguments: [idText])!)
            try Self.recordWebhookEvent(receipt, expense: expense, now: now, db)
            return (receipt, expense)
        }
    }

    /// The earliest other expense of the same owner (and end user) for the same purchase
    /// (`PurchaseMatch`: the same date and total at the same shop, the same time and receipt
    /// number where both print them). Another user's purchase is never named.
    private static func possibleDuplicate(of expense: Expense, work: CompletedWork, ownership: Ownership, _ db: Database) throws -> UUID? {
        guard let date = expense.date, let amount = expense.amount else { return nil }
        let mine = PurchaseMatch.Side(vendor: expense.description, date: date, amount: amount, analysis: work.analysis, text: work.ocrText)
        let rows = try Row.fetchAll(db, sql: """
            SELECT e.id, e.description, r.ocrResultJson, r.ocrText FROM expense e JOIN receipt r ON r.id = e.receiptId
            WHERE e.date = ? AND e.amount = ? AND e.receiptId != ? AND r.owner = ? AND r.externalUser IS ?
            ORDER BY e.lastModified, e.rowid LIMIT 50
            """, arguments: [date.description, amount.plainString, StoreRows.text(expense.receiptId), ownership.owner, ownership.externalUser])
        for row in rows {
            let analysis = (row["ocrResultJson"] as String?).flatMap { try? JSONValue.parse($0) }.map { ReceiptAnalysis(json: $0) }
            let other = PurchaseMatch.Side(vendor: row["description"], date: date, amount: amount, analysis: analysis, text: row["ocrText"])
            if PurchaseMatch.same(mine, other) { return StoreRows.uuid(row, "id") }
        }
        return nil
    }

    private static func holds(_ id: String, _ owner: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT ocrStatus = 'processing' AND leaseOwner = ? FROM receipt WHERE id = ?",
                          arguments: [owner, id]) ?? false
    }

    public func fail(id: UUID, holder: String, error: String, retryAt: Date?, now: Date) async throws -> Receipt? {
        try await write { db in
            let idText = StoreRows.text(id)
            guard try Self.holds(idText, holder, db) else { return nil }
            try db.execute(sql: """
                UPDATE receipt SET ocrStatus = ?, lastError = ?, notBefore = ?, leaseOwner = NULL,
                    leaseExpiresAt = NULL, updatedAt = ?
                WHERE id = ?
                """, arguments: [retryAt == nil ? "failed" : "pending", error, retryAt, now, idText])
            let receipt = StoreRows.receipt(try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?", arguments: [idText])!)
            if retryAt == nil { try Self.recordWebhookEvent(receipt, expense: nil, now: now, db) }
            return receipt
        }
    }

    public func release(id: UUID, holder: String, now: Date) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE receipt SET ocrStatus = 'pending', attempts = max(attempts - 1, 0), leaseOwner = NULL,
                    leaseExpiresAt = NULL, updatedAt = ?
                WHERE id = ? AND ocrStatus = 'processing' AND leaseOwner = ?
                """, arguments: [now, StoreRows.text(id), holder])
        }
    }

    public func reclaim(now: Date, maxAttempts: Int,
                        isAbandoned: @escaping @Sendable (String) -> Bool) async throws -> [Receipt] {
        try await write { db in
            var changed: [Receipt] = []
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM receipt WHERE ocrStatus = 'processing'")
            for row in rows {
                let expires = row["leaseExpiresAt"] as Date?
                let owner = row["leaseOwner"] as String?
                let expired = expires.map { $0 <= now } ?? true
                guard expired || owner.map(isAbandoned) ?? true else { continue }
                let receipt = StoreRows.receipt(row)
                let idText = StoreRows.text(receipt.id)
                if receipt.attempts >= maxAttempts {
                    let times = receipt.attempts == 1 ? "once" : "\(receipt.attempts) times"
                    let message = "\(receipt.filePath): processing was interrupted \(times) (the process stopped or crashed while reading this receipt); see `receipts retry`"
                    try db.execute(sql: """
                        UPDATE receipt SET ocrStatus = 'failed', lastError = ?, leaseOwner = NULL, leaseExpiresAt = NULL,
                            updatedAt = ?
                        WHERE id = ?
                        """, arguments: [message, now, idText])
                } else {
                    try db.execute(sql: """
                        UPDATE receipt SET ocrStatus = 'pending', leaseOwner = NULL, leaseExpiresAt = NULL, updatedAt = ?
                        WHERE id = ?
                        """, arguments: [now, idText])
                }
                let updated = StoreRows.receipt(try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?",
                                                                  arguments: [idText])!)
                if updated.ocrStatus == .failed { try Self.recordWebhookEvent(updated, expense: nil, now: now, db) }
                changed.append(updated)
            }
            return changed
        }
    }

    public func nextDueDate() async throws -> Date? {
        try await read { db in
            try Date.fetchOne(db, sql: "SELECT min(notBefore) FROM receipt WHERE ocrStatus = 'pending'")
        }
    }

    public func requeue(id: UUID, in scope: Scope, now: Date) async throws -> Receipt {
        let location = self.location
        let (condition, arguments) = StoreRows.condition(scope)
        return try await write { db in
            let idText = StoreRows.text(id)
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ? AND \(condition)", arguments: [idText] + arguments) else {
                throw ReceiptError(.notFound, "no receipt with id \(idText)", file: location)
            }
            let receipt = StoreRows.receipt(row)
            guard receipt.ocrStatus == .failed else {
                throw ReceiptError(.invalidState,
                                 "receipt \(idText) is \(receipt.ocrStatus.rawValue), not failed; only failed receipts can be retried",
                                 file: location)
            }
            try db.execute(sql: """
                UPDATE receipt SET ocrStatus = 'pending', attempts = 0, notBefore = NULL, updatedAt = ? WHERE id = ?
                """, arguments: [now, idText])
            return StoreRows.receipt(try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?", arguments: [idText])!)
        }
    }

    public func requeueFailed(in scope: Scope, now: Date) async throws -> [Receipt] {
        let (condition, arguments) = StoreRows.condition(scope)
        return try await write { db in
            let ids = try String.fetchAll(db, sql: "SELECT id FROM receipt WHERE ocrStatus = 'failed' AND \(condition) ORDER BY createdAt, rowid",
                                          arguments: arguments)
            try db.execute(sql: """
                UPDATE receipt SET ocrStatus = 'pending', attempts = 0, notBefore = NULL, updatedAt = ?
                WHERE ocrStatus = 'failed' AND \(condition)
                """, arguments: [now] + arguments)
            return try ids.compactMap { id in
                try Row.fetchOne(db, sql: "SELECT * FROM receipt WHERE id = ?", arguments: [id]).map(StoreRows.receipt)
            }
        }
    }

    // MARK: Webhook outbox

    /// Writes the webhook events of a receipt that just finished, in the caller's transaction: the
    /// server-wide webhook's when webhooks are on in this store (see `WebhookEvent`), and one for
    /// each user's webhook whose user may see the receipt (`Principal.webhookSees`, the rule every
    /// read follows): its owner, its group's members, administrators; a webhook for one end user
    /// only gets that end user's receipts.
    package static func recordWebhookEvent(_ receipt: Receipt, expense: Expense?, now: Date, _ db: Database) throws {
        var subscriptions: [String?] = try webhooksEnabled(db) ? [nil] : []
        let webhooks = try Row.fetchAll(db, sql: """
            SELECT s.id, s.userName, s.externalUser, a.isAdmin,
                EXISTS (SELECT 1 FROM group_member m WHERE m.groupName = ? AND m.userName = s.userName) AS member
            FROM webhook_subscription s JOIN account a ON a.name = s.userName
            ORDER BY s.createdAt, s.id
            """, arguments: [receipt.ownership.group])
        for webhook in webhooks where Principal.webhookSees(receipt, user: webhook["userName"], isAdmin: webhook["isAdmin"],
                                                              externalUser: webhook["externalUser"], memberOfItsGroup: webhook["member"]) {
            subscriptions.append(webhook["id"])
        }
        for subscription in subscriptions {
            let event = WebhookEvent(finished: receipt, expense: expense, subscriptionId: subscription.flatMap(UUID.init(uuidString:)), now: now)
            try db.execute(sql: """
                INSERT INTO webhook_event (id, receiptId, subscriptionId, type, body, createdAt, pendingSince, attempts, nextAttemptAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)
                """, arguments: [StoreRows.text(event.id), StoreRows.text(event.receiptId), subscription, event.type, event.body,
                                 now, now, now])
        }
    }

    package static func webhooksEnabled(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM store_setting WHERE name = 'webhooks' AND value = 'on')") ?? false
    }
}
