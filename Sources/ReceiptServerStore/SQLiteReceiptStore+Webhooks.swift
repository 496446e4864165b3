import Foundation
import GRDB
import ReceiptModel
import ReceiptStorage

/// The webhook outbox in SQLite. Events are written by the queue's transactions (ReceiptStorage);
/// here is what the sender and `receipts webhooks` do with them. Each step is one write
/// transaction: SQLite has one writer at a time, so two senders (two processes on one file) never
/// claim one event while its lease lasts.
extension SQLiteReceiptStore {
    public func setWebhooksEnabled(_ enabled: Bool) async throws {
        try await write { db in
            if enabled {
                try db.execute(sql: """
                    INSERT INTO store_setting (name, value) VALUES ('webhooks', 'on')
                    ON CONFLICT(name) DO UPDATE SET value = excluded.value
                    """)
            } else {
                try db.execute(sql: "DELETE FROM store_setting WHERE name = 'webhooks'")
            }
        }
    }

    public func webhooksEnabled() async throws -> Bool {
        try await read { db in try Self.webhooksEnabled(db) }
    }

    public func claimWebhookEvents(_ lease: Lease, limit: Int, serverWide: Bool) async throws -> [WebhookEvent] {
        try await write { db in
            let ids = try String.fetchAll(db, sql: """
                SELECT id FROM webhook_event
                WHERE deliveredAt IS NULL AND deadAt IS NULL AND nextAttemptAt <= ?
                    AND (leaseExpiresAt IS NULL OR leaseExpiresAt <= ?)\(serverWide ? "" : " AND subscriptionId IS NOT NULL")
                ORDER BY createdAt, rowid LIMIT ?
                """, arguments: [lease.now, lease.now, max(1, limit)])
            return try ids.map { id in
                try db.execute(sql: """
                    UPDATE webhook_event SET attempts = attempts + 1, leaseOwner = ?, leaseExpiresAt = ? WHERE id = ?
                    """, arguments: [lease.holder, lease.expiresAt, id])
                return Self.webhookEvent(try Row.fetchOne(db, sql: "SELECT * FROM webhook_event WHERE id = ?", arguments: [id])!)
            }
        }
    }

    public func markWebhookDelivered(id: UUID, now: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: """
                UPDATE webhook_event SET deliveredAt = ?, deadAt = NULL, lastError = NULL, leaseOwner = NULL, leaseExpiresAt = NULL
                WHERE id = ? AND deliveredAt IS NULL
                """, arguments: [now, StoreRows.text(id)])
            return db.changesCount == 1
        }
    }

    public func markWebhookFailed(id: UUID, holder: String, error: String, retryAt: Date?, now: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: """
                UPDATE webhook_event SET lastError = ?, nextAttemptAt = coalesce(?, nextAttemptAt), deadAt = ?,
                    leaseOwner = NULL, leaseExpiresAt = NULL
                WHERE id = ? AND leaseOwner = ? AND deliveredAt IS NULL AND deadAt IS NULL
                """, arguments: [error, retryAt, retryAt == nil ? now : nil, StoreRows.text(id), holder])
            return db.changesCount == 1
        }
    }

    public func pruneWebhookEvents(deliveredBefore date: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM webhook_event WHERE deliveredAt IS NOT NULL AND deliveredAt < ?", arguments: [date])
            return db.changesCount
        }
    }

    public func nextWebhookAttempt(serverWide: Bool) async throws -> Date? {
        try await read { db in
            try Date.fetchOne(db, sql: """
                SELECT min(max(nextAttemptAt, coalesce(leaseExpiresAt, nextAttemptAt))) FROM webhook_event
                WHERE deliveredAt IS NULL AND deadAt IS NULL\(serverWide ? "" : " AND subscriptionId IS NOT NULL")
                """)
        }
    }

    public func webhookEvents(state: WebhookEvent.State?, limit: Int?) async throws -> [WebhookEvent] {
        try await read { db in
            let condition = switch state {
            case nil: "1"
            case .pending?: "deliveredAt IS NULL AND deadAt IS NULL"
            case .delivered?: "deliveredAt IS NOT NULL"
            case .dead?: "deliveredAt IS NULL AND deadAt IS NOT NULL"
            }
            return try Row.fetchAll(db, sql: """
                SELECT * FROM webhook_event WHERE \(condition) ORDER BY createdAt DESC, rowid DESC LIMIT ?
                """, arguments: [limit ?? -1]).map(Self.webhookEvent)
        }
    }

    public func webhookEvent(id: UUID) async throws -> WebhookEvent? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM webhook_event WHERE id = ?", arguments: [StoreRows.text(id)]).map(Self.webhookEvent)
        }
    }

    public func webhookEventCounts() async throws -> [WebhookEvent.State: Int] {
        try await read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*) FILTER (WHERE deliveredAt IS NULL AND deadAt IS NULL) AS pending,
                       count(*) FILTER (WHERE deliveredAt IS NOT NULL) AS delivered,
                       count(*) FILTER (WHERE deliveredAt IS NULL AND deadAt IS NOT NULL) AS dead
                FROM webhook_event
                """)!
            return [.pending: row["pending"], .delivered: row["delivered"], .dead: row["dead"]]
        }
    }

    public func retryWebhookEvent(id: UUID, now: Date) async throws -> WebhookEvent {
        let location = self.location
        return try await write { db in
            let idText = StoreRows.text(id)
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM webhook_event WHERE id = ?", arguments: [idText]) else {
                throw ReceiptError(.notFound, "no webhook event with id \(idText) (see `receipts webhooks list`)", file: location)
            }
            guard Self.webhookEvent(row).state != .delivered else {
                throw ReceiptError(.invalidState, "webhook event \(idText) was delivered already; only pending or dead events can be retried",
                                   file: location)
            }
            try Self.retryWebhookEvents(where: "id = ?", [idText], now: now, db)
            return Self.webhookEvent(try Row.fetchOne(db, sql: "SELECT * FROM webhook_event WHERE id = ?", arguments: [idText])!)
        }
    }

    public func retryDeadWebhookEvents(now: Date) async throws -> [WebhookEvent] {
        try await write { db in
            let ids = try String.fetchAll(db, sql: """
                SELECT id FROM webhook_event WHERE deliveredAt IS NULL AND deadAt IS NOT NULL ORDER BY createdAt, rowid
                """)
            try Self.retryWebhookEvents(where: "deliveredAt IS NULL AND deadAt IS NOT NULL", [], now: now, db)
            return try ids.compactMap { id in
                try Row.fetchOne(db, sql: "SELECT * FROM webhook_event WHERE id = ?", arguments: [id]).map(Self.webhookEvent)
            }
        }
    }

    private static func retryWebhookEvents(where condition: String, _ arguments: StatementArguments, now: Date, _ db: Database) throws {
        try db.execute(sql: """
            UPDATE webhook_event SET deadAt = NULL, attempts = 0, nextAttemptAt = ?, pendingSince = ?
            WHERE \(condition)
            """, arguments: [now, now] + arguments)
    }

    static func webhookEvent(_ row: Row) -> WebhookEvent {
        WebhookEvent(id: StoreRows.uuid(row, "id") ?? UUID(), receiptId: StoreRows.uuid(row, "receiptId") ?? UUID(),
                     subscriptionId: StoreRows.uuid(row, "subscriptionId"), type: row["type"], body: row["body"], createdAt: row["createdAt"], pendingSince: row["pendingSince"],
                     attempts: row["attempts"], nextAttemptAt: row["nextAttemptAt"], lastError: row["lastError"],
                     deliveredAt: row["deliveredAt"], deadAt: row["deadAt"])
    }

    // MARK: Users' own webhooks

    public func addWebhookSubscription(_ subscription: WebhookSubscription) async throws {
        let location = self.location
        try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM account WHERE name = ?)", arguments: [subscription.user]) == true else {
                throw ReceiptError(.notFound, "no user named '\(subscription.user)' (see `receipts user list`)", file: location)
            }
            try db.execute(sql: """
                INSERT INTO webhook_subscription (id, userName, externalUser, url, secret, createdAt) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [StoreRows.text(subscription.id), subscription.user, subscription.externalUser,
                                 subscription.url.absoluteString, subscription.secret, subscription.createdAt])
        }
    }

    public func webhookSubscriptions(user: String?) async throws -> [WebhookSubscription] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM webhook_subscription WHERE ? IS NULL OR userName = ? ORDER BY createdAt, rowid
                """, arguments: [user, user]).compactMap { row in
                guard let url = URL(string: row["url"]) else { return nil }
                return WebhookSubscription(id: StoreRows.uuid(row, "id") ?? UUID(), user: row["userName"], externalUser: row["externalUser"],
                                           url: url, secret: row["secret"], createdAt: row["createdAt"])
            }
        }
    }

    public func removeWebhookSubscription(id: UUID, user: String?) async throws {
        let location = self.location
        try await write { db in
            let idText = StoreRows.text(id)
            try db.execute(sql: "DELETE FROM webhook_subscription WHERE id = ? AND (? IS NULL OR userName = ?)", arguments: [idText, user, user])
            guard db.changesCount == 1 else {
                throw ReceiptError(.notFound, "no webhook with id \(idText)", file: location)
            }
            try db.execute(sql: "DELETE FROM webhook_event WHERE subscriptionId = ? AND deliveredAt IS NULL", arguments: [idText])
        }
    }
}
