import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptServerStore
import ReceiptStorage

/// The webhook outbox in PostgreSQL. Events are written by the queue's transactions
/// (`recordWebhookEvent`); here is what the senders and `receipts webhooks` do with them. A claim is
/// one statement that locks due rows with `FOR UPDATE SKIP LOCKED` and leases them, so senders on
/// any number of hosts never hold one event at the same time and never wait for each other.
extension PostgresReceiptStore {
    public func setWebhooksEnabled(_ enabled: Bool) async throws {
        if enabled {
            try await execute("""
                INSERT INTO receipts.store_setting (name, value) VALUES ('webhooks', 'on')
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """)
        } else {
            try await execute("DELETE FROM receipts.store_setting WHERE name = 'webhooks'")
        }
    }

    public func webhooksEnabled() async throws -> Bool {
        try await rows("SELECT EXISTS (SELECT 1 FROM receipts.store_setting WHERE name = 'webhooks' AND value = 'on')")
            .first?.decode(Bool.self) ?? false
    }

    public func claimWebhookEvents(_ lease: Lease, limit: Int, serverWide: Bool) async throws -> [WebhookEvent] {
        // Without `serverWide`, only users' webhooks' events (`subscription_id` set).
        let rows = try await self.rows("""
            WITH claimed AS (
                UPDATE receipts.webhook_event SET attempts = attempts + 1, lease_owner = \(lease.holder),
                    lease_expires_at = \(lease.expiresAt)
                WHERE id IN (
                    SELECT id FROM receipts.webhook_event
                    WHERE delivered_at IS NULL AND dead_at IS NULL AND next_attempt_at <= \(lease.now)
                        AND (lease_expires_at IS NULL OR lease_expires_at <= \(lease.now))
                        AND (\(serverWide) OR subscription_id IS NOT NULL)
                    ORDER BY seq LIMIT \(max(1, limit))
                    FOR UPDATE SKIP LOCKED)
                RETURNING *)
            SELECT * FROM claimed ORDER BY seq
            """)
        return try rows.map(Self.webhookEvent)
    }

    public func markWebhookDelivered(id: UUID, now: Date) async throws -> Bool {
        try await !rows("""
            UPDATE receipts.webhook_event SET delivered_at = \(now), dead_at = NULL, last_error = NULL, lease_owner = NULL,
                lease_expires_at = NULL
            WHERE id = \(id) AND delivered_at IS NULL RETURNING 1
            """).isEmpty
    }

    public func markWebhookFailed(id: UUID, holder: String, error: String, retryAt: Date?, now: Date) async throws -> Bool {
        let dead: Date? = retryAt == nil ? now : nil
        return try await !rows("""
            UPDATE receipts.webhook_event SET last_error = \(error), next_attempt_at = coalesce(\(retryAt), next_attempt_at),
                dead_at = \(dead), lease_owner = NULL, lease_expires_at = NULL
            WHERE id = \(id) AND lease_owner = \(holder) AND delivered_at IS NULL AND dead_at IS NULL RETURNING 1
            """).isEmpty
    }

    public func pruneWebhookEvents(deliveredBefore date: Date) async throws -> Int {
        try await rows("""
            DELETE FROM receipts.webhook_event WHERE delivered_at IS NOT NULL AND delivered_at < \(date) RETURNING 1
            """).count
    }

    public func nextWebhookAttempt(serverWide: Bool) async throws -> Date? {
        try await rows("""
            SELECT min(greatest(next_attempt_at, lease_expires_at)) FROM receipts.webhook_event
            WHERE delivered_at IS NULL AND dead_at IS NULL AND (\(serverWide) OR subscription_id IS NOT NULL)
            """).first?.decode(Date?.self)
    }

    public func webhookEvents(state: WebhookEvent.State?, limit: Int?) async throws -> [WebhookEvent] {
        let condition = switch state {
        case nil: "true"
        case .pending?: "delivered_at IS NULL AND dead_at IS NULL"
        case .delivered?: "delivered_at IS NOT NULL"
        case .dead?: "delivered_at IS NULL AND dead_at IS NOT NULL"
        }
        return try await rows("""
            SELECT * FROM receipts.webhook_event WHERE \(unescaped: condition) ORDER BY seq DESC LIMIT \(limit ?? Int.max)
            """).map(Self.webhookEvent)
    }

    public func webhookEvent(id: UUID) async throws -> WebhookEvent? {
        try await rows("SELECT * FROM receipts.webhook_event WHERE id = \(id)").first.map(Self.webhookEvent)
    }

    public func webhookEventCounts() async throws -> [WebhookEvent.State: Int] {
        guard let row = try await rows("""
            SELECT count(*) FILTER (WHERE delivered_at IS NULL AND dead_at IS NULL),
                   count(*) FILTER (WHERE delivered_at IS NOT NULL),
                   count(*) FILTER (WHERE delivered_at IS NULL AND dead_at IS NOT NULL)
            FROM receipts.webhook_event
            """).first else { return [:] }
        let (pending, delivered, dead) = try row.decode((Int, Int, Int).self)
        return [.pending: pending, .delivered: delivered, .dead: dead]
    }

    public func retryWebhookEvent(id: UUID, now: Date) async throws -> WebhookEvent {
        let location = self.location
        return try await transaction { connection in
            guard let row = try await connection.query(
                "SELECT * FROM receipts.webhook_event WHERE id = \(id) FOR UPDATE", logger: self.logger).collect().first else {
                throw ReceiptError(.notFound, "no webhook event with id \(id.uuidString.lowercased()) (see `receipts webhooks list`)",
                                   file: location)
            }
            guard try Self.webhookEvent(row).state != .delivered else {
                throw ReceiptError(.invalidState,
                                   "webhook event \(id.uuidString.lowercased()) was delivered already; only pending or dead events can be retried",
                                   file: location)
            }
            let rows = try await connection.query("""
                UPDATE receipts.webhook_event SET dead_at = NULL, attempts = 0, next_attempt_at = \(now), pending_since = \(now)
                WHERE id = \(id) RETURNING *
                """, logger: self.logger).collect()
            try await Self.notify(Self.finishedChannel, connection, self.logger)
            return try Self.webhookEvent(rows[0])
        }
    }

    public func retryDeadWebhookEvents(now: Date) async throws -> [WebhookEvent] {
        try await transaction { connection in
            let rows = try await connection.query("""
                WITH retried AS (
                    UPDATE receipts.webhook_event SET dead_at = NULL, attempts = 0, next_attempt_at = \(now), pending_since = \(now)
                    WHERE delivered_at IS NULL AND dead_at IS NOT NULL RETURNING *)
                SELECT * FROM retried ORDER BY seq
                """, logger: self.logger).collect()
            if !rows.isEmpty { try await Self.notify(Self.finishedChannel, connection, self.logger) }
            return try rows.map(Self.webhookEvent)
        }
    }

    static func webhookEvent(_ row: PostgresRow) throws -> WebhookEvent {
        let r = row.makeRandomAccess()
        return WebhookEvent(
            id: try r["id"].decode(UUID.self),
            receiptId: try r["receipt_id"].decode(UUID.self),
            subscriptionId: try r["subscription_id"].decode(UUID?.self),
            type: try r["type"].decode(String.self),
            body: try r["body"].decode(String.self),
            createdAt: try r["created_at"].decode(Date.self),
            pendingSince: try r["pending_since"].decode(Date.self),
            attempts: try r["attempts"].decode(Int.self),
            nextAttemptAt: try r["next_attempt_at"].decode(Date.self),
            lastError: try r["last_error"].decode(String?.self),
            deliveredAt: try r["delivered_at"].decode(Date?.self),
            deadAt: try r["dead_at"].decode(Date?.self))
    }

    // MARK: Users' own webhooks

    public func addWebhookSubscription(_ subscription: WebhookSubscription) async throws {
        let location = self.location
        let s = subscription
        try await transaction { connection in
            guard try await !connection.query("SELECT 1 FROM receipts.account WHERE name = \(s.user) FOR SHARE",
                                              logger: self.logger).collect().isEmpty else {
                throw ReceiptError(.notFound, "no user named '\(s.user)' (see `receipts user list`)", file: location)
            }
            try await connection.query("""
                INSERT INTO receipts.webhook_subscription (id, user_name, external_user, url, secret, created_at)
                VALUES (\(s.id), \(s.user), \(s.externalUser), \(s.url.absoluteString), \(s.secret), \(s.createdAt))
                """, logger: self.logger)
        }
    }

    public func webhookSubscriptions(user: String?) async throws -> [WebhookSubscription] {
        try await rows("""
            SELECT id, user_name, external_user, url, secret, created_at FROM receipts.webhook_subscription
            WHERE \(user)::text IS NULL OR user_name = \(user) ORDER BY created_at, seq
            """).compactMap { row in
            let (id, user, external, url, secret, created) = try row.decode((UUID, String, String?, String, String, Date).self)
            guard let url = URL(string: url) else { return nil }
            return WebhookSubscription(id: id, user: user, externalUser: external, url: url, secret: secret, createdAt: created)
        }
    }

    public func removeWebhookSubscription(id: UUID, user: String?) async throws {
        let location = self.location
        try await transaction { connection in
            let removed = try await connection.query("""
                DELETE FROM receipts.webhook_subscription WHERE id = \(id) AND (\(user)::text IS NULL OR user_name = \(user)) RETURNING 1
                """, logger: self.logger).collect()
            guard !removed.isEmpty else {
                throw ReceiptError(.notFound, "no webhook with id \(id.uuidString.lowercased())", file: location)
            }
            // Its events not yet delivered are dropped; those delivered stay as the record of what was sent.
            try await connection.query("DELETE FROM receipts.webhook_event WHERE subscription_id = \(id) AND delivered_at IS NULL",
                                       logger: self.logger)
        }
    }
}
