import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

/// The queue's state changes. A claim is one statement that locks the oldest due pending row with
/// `FOR UPDATE SKIP LOCKED`, so workers on any number of hosts never take the same receipt and
/// never wait for each other; every other step checks the lease inside its transaction.
extension PostgresReceiptStore {
    public func claimNext(_ lease: Lease) async throws -> ClaimedJob? {
        let rows = try await rows("""
            UPDATE receipts.receipt SET ocr_status = 'processing', attempts = attempts + 1, lease_owner = \(lease.holder),
                lease_expires_at = \(lease.expiresAt), not_before = NULL, updated_at = \(lease.now)
            WHERE id = (
                SELECT id FROM receipts.receipt
                WHERE ocr_status = 'pending' AND (not_before IS NULL OR not_before <= \(lease.now))
                ORDER BY seq LIMIT 1
                FOR UPDATE SKIP LOCKED)
            RETURNING *
            """)
        return try rows.first.map(Self.job)
    }

    private static func job(_ row: PostgresRow) throws -> ClaimedJob {
        ClaimedJob(receipt: try PostgresRows.receipt(row), imagePath: try row.makeRandomAccess()["image_ref"].decode(String?.self))
    }

    public func claim(id: UUID, _ lease: Lease) async throws -> ClaimAttempt {
        try await transaction { connection in
            guard let row = try await connection.query(
                "SELECT * FROM receipts.receipt WHERE id = \(id) FOR UPDATE", logger: self.logger).collect().first else {
                return .notFound
            }
            let receipt = try PostgresRows.receipt(row)
            let columns = row.makeRandomAccess()
            switch receipt.ocrStatus {
            case .completed, .failed:
                return .finished(receipt)
            case .processing:
                return .leased(receipt, until: try columns["lease_expires_at"].decode(Date?.self))
            case .pending:
                if let notBefore = try columns["not_before"].decode(Date?.self), notBefore > lease.now {
                    return .notDue(receipt, until: notBefore)
                }
                let taken = try await connection.query("""
                    UPDATE receipts.receipt SET ocr_status = 'processing', attempts = attempts + 1, lease_owner = \(lease.holder),
                        lease_expires_at = \(lease.expiresAt), not_before = NULL, updated_at = \(lease.now)
                    WHERE id = \(id) RETURNING *
                    """, logger: self.logger).collect()
                return .claimed(try Self.job(taken[0]))
            }
        }
    }

    public func renew(id: UUID, _ lease: Lease) async throws -> Bool {
        try await !rows("""
            UPDATE receipts.receipt SET lease_expires_at = \(lease.expiresAt)
            WHERE id = \(id) AND ocr_status = 'processing' AND lease_owner = \(lease.holder)
            RETURNING 1
            """).isEmpty
    }

    /// Locks the receipt if this worker (`owner` of the lease) holds it, and says whose receipt it
    /// is: its owner and end user.
    private func hold(_ id: UUID, _ owner: String, _ connection: PostgresConnection) async throws -> (owner: String, externalUser: String?)? {
        try await connection.query("""
            SELECT owner, external_user FROM receipts.receipt
            WHERE id = \(id) AND ocr_status = 'processing' AND lease_owner = \(owner) FOR UPDATE
            """, logger: logger).collect().first?.decode((String, String?).self)
    }

    public func complete(id: UUID, holder: String, work: CompletedWork, now: Date) async throws -> (Receipt, Expense)? {
        try await transaction { connection in
            guard let held = try await self.hold(id, holder, connection) else { return nil }
            var expense = work.expense
            expense.receiptId = id
            expense.possibleDuplicateOf = try await Self.possibleDuplicate(of: expense, work: work, owner: held.owner,
                                                                           externalUser: held.externalUser, connection, self.logger)
            try await connection.query(PostgresRows.insertExpense(expense), logger: self.logger)
            let rows = try await connection.query("""
                UPDATE receipts.receipt SET ocr_status = 'completed', ocr_result_json = \(work.analysis.json.serialized()),
                    ocr_text = \(work.ocrText), analyzer = \(work.analysis.analyzer), last_error = NULL, expense_id = \(expense.id),
                    lease_owner = NULL, lease_expires_at = NULL, not_before = NULL, updated_at = \(now)
                WHERE id = \(id) RETURNING *, \(unescaped: Self.anyWebhook) AS any_webhook
                """, logger: self.logger).collect()
            let receipt = try PostgresRows.receipt(rows[0])
            // Most stores have no webhook: then the event's statement (the costliest of the
            // transaction to plan) is not sent at all.
            if try rows[0].makeRandomAccess()["any_webhook"].decode(Bool.self) {
                try await Self.recordWebhookEvent(receipt, expense: expense, now: now, connection, self.logger)
            }
            try await Self.notify(Self.finishedChannel, connection, self.logger)
            return (receipt, expense)
        }
    }

    /// The earliest other expense of the same owner (and end user) for the same purchase
    /// (`PurchaseMatch`, as SQLite's). Another user's purchase is never named.
    private static func possibleDuplicate(of expense: Expense, work: CompletedWork, owner: String, externalUser: String?,
                                          _ connection: PostgresConnection, _ logger: Logger) async throws -> UUID? {
        guard let date = expense.date, let amount = expense.amount else { return nil }
        let mine = PurchaseMatch.Side(vendor: expense.description, date: date, amount: amount, analysis: work.analysis, text: work.ocrText)
        let rows = try await connection.query("""
            SELECT e.id, e.description, r.ocr_result_json, r.ocr_text FROM receipts.expense e JOIN receipts.receipt r ON r.id = e.receipt_id
            WHERE e.date = \(date.description)::date AND e.amount = \(amount.plainString)::numeric AND e.receipt_id <> \(expense.receiptId)
                AND r.owner = \(owner) AND r.external_user IS NOT DISTINCT FROM \(externalUser)::text
            ORDER BY e.last_modified, e.seq LIMIT 50
            """, logger: logger).collect()
        for row in rows {
            let (id, vendor, json, text) = try row.decode((UUID, String, String?, String?).self)
            let analysis = json.flatMap { try? JSONValue.parse($0) }.map { ReceiptAnalysis(json: $0) }
            if PurchaseMatch.same(mine, PurchaseMatch.Side(vendor: vendor, date: date, amount: amount, analysis: analysis, text: text)) { return id }
        }
        return nil
    }

    public func fail(id: UUID, holder: String, error: String, retryAt: Date?, now: Date) async throws -> Receipt? {
        try await transaction { connection in
            guard try await self.hold(id, holder, connection) != nil else { return nil }
            let rows = try await connection.query("""
                UPDATE receipts.receipt SET ocr_status = \(retryAt == nil ? "failed" : "pending"), last_error = \(error),
                    not_before = \(retryAt), lease_owner = NULL, lease_expires_at = NULL, updated_at = \(now)
                WHERE id = \(id) RETURNING *
                """, logger: self.logger).collect()
            let receipt = try PostgresRows.receipt(rows[0])
            if retryAt == nil { try await Self.recordWebhookEvent(receipt, expense: nil, now: now, connection, self.logger) }
            try await Self.notify(retryAt == nil ? Self.finishedChannel : Self.workChannel, connection, self.logger)
            return receipt
        }
    }

    public func release(id: UUID, holder: String, now: Date) async throws {
        try await transaction { connection in
            let rows = try await connection.query("""
                UPDATE receipts.receipt SET ocr_status = 'pending', attempts = greatest(attempts - 1, 0), lease_owner = NULL,
                    lease_expires_at = NULL, updated_at = \(now)
                WHERE id = \(id) AND ocr_status = 'processing' AND lease_owner = \(holder)
                RETURNING 1
                """, logger: self.logger).collect()
            if !rows.isEmpty { try await Self.notify(Self.workChannel, connection, self.logger) }
        }
    }

    public func reclaim(now: Date, maxAttempts: Int, isAbandoned: @escaping @Sendable (String) -> Bool) async throws -> [Receipt] {
        try await transaction { connection in
            // Rows another host is reclaiming (or finishing) right now are skipped, not waited for.
            let rows = try await connection.query("""
                SELECT id, lease_owner, lease_expires_at, attempts, file_path FROM receipts.receipt
                WHERE ocr_status = 'processing' FOR UPDATE SKIP LOCKED
                """, logger: self.logger).collect()
            var changed: [Receipt] = []
            for row in rows {
                let (id, owner, expires, attempts, filePath) = try row.decode((UUID, String?, Date?, Int, String).self)
                let expired = expires.map { $0 <= now } ?? true
                guard expired || owner.map(isAbandoned) ?? true else { continue }
                let updated: [PostgresRow]
                if attempts >= maxAttempts {
                    let times = attempts == 1 ? "once" : "\(attempts) times"
                    let message = "\(filePath): processing was interrupted \(times) (the process stopped or crashed while reading this receipt); see `receipts retry`"
                    updated = try await connection.query("""
                        UPDATE receipts.receipt SET ocr_status = 'failed', last_error = \(message), lease_owner = NULL,
                            lease_expires_at = NULL, updated_at = \(now)
                        WHERE id = \(id) RETURNING *
                        """, logger: self.logger).collect()
                } else {
                    updated = try await connection.query("""
                        UPDATE receipts.receipt SET ocr_status = 'pending', lease_owner = NULL, lease_expires_at = NULL,
                            updated_at = \(now)
                        WHERE id = \(id) RETURNING *
                        """, logger: self.logger).collect()
                }
                let receipt = try PostgresRows.receipt(updated[0])
                if receipt.ocrStatus == .failed {
                    try await Self.recordWebhookEvent(receipt, expense: nil, now: now, connection, self.logger)
                }
                changed.append(receipt)
            }
            if changed.contains(where: { $0.ocrStatus == .pending }) {
                try await Self.notify(Self.workChannel, connection, self.logger)
            }
            if changed.contains(where: { $0.ocrStatus == .failed }) {
                try await Self.notify(Self.finishedChannel, connection, self.logger)
            }
            return changed
        }
    }

    public func nextDueDate() async throws -> Date? {
        try await rows("SELECT min(not_before) FROM receipts.receipt WHERE ocr_status = 'pending'").first?.decode(Date?.self)
    }

    public func requeue(id: UUID, in scope: Scope, now: Date) async throws -> Receipt {
        let location = self.location
        return try await transaction { connection in
            guard let row = try await connection.query(
                "SELECT * FROM receipts.receipt r WHERE r.id = \(id) AND \(scope: scope, alias: "r") FOR UPDATE OF r",
                logger: self.logger).collect().first else {
                throw ReceiptError(.notFound, "no receipt with id \(id.uuidString.lowercased())", file: location)
            }
            let receipt = try PostgresRows.receipt(row)
            guard receipt.ocrStatus == .failed else {
                throw ReceiptError(.invalidState,
                                   "receipt \(id.uuidString.lowercased()) is \(receipt.ocrStatus.rawValue), not failed; only failed receipts can be retried",
                                   file: location)
            }
            let rows = try await connection.query("""
                UPDATE receipts.receipt SET ocr_status = 'pending', attempts = 0, not_before = NULL, updated_at = \(now)
                WHERE id = \(id) RETURNING *
                """, logger: self.logger).collect()
            try await Self.notify(Self.workChannel, connection, self.logger)
            return try PostgresRows.receipt(rows[0])
        }
    }

    public func requeueFailed(in scope: Scope, now: Date) async throws -> [Receipt] {
        try await transaction { connection in
            let rows = try await connection.query("""
                WITH requeued AS (
                    UPDATE receipts.receipt r SET ocr_status = 'pending', attempts = 0, not_before = NULL, updated_at = \(now)
                    WHERE r.ocr_status = 'failed' AND \(scope: scope, alias: "r") RETURNING *)
                SELECT * FROM requeued ORDER BY created_at, seq
                """, logger: self.logger).collect()
            if !rows.isEmpty { try await Self.notify(Self.workChannel, connection, self.logger) }
            return try rows.map(PostgresRows.receipt)
        }
    }

    // MARK: Changes made by other hosts

    /// Calls `onChange` whenever any host submits, returns or finishes a receipt (`LISTEN`), until
    /// the task is cancelled. After a lost connection (a PostgreSQL restart) it reconnects, and
    /// reports `.workAvailable` and `.finished` once, as anything may have happened meanwhile.
    public func watchChanges(_ onChange: @escaping @Sendable (StoreChange) -> Void) async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                // A connection of its own, not the pool's: it is held as long as the store is
                // watched, and it is closed (not cancelled mid-request) when the watch ends.
                let connection = try await connectDirectly(id: 1)
                do {
                    try await withTaskCancellationHandler {
                        try await connection.listen(on: Self.workChannel) { work in
                            try await connection.listen(on: Self.finishedChannel) { finished in
                                delay = .milliseconds(100)
                                // Whatever was announced while no one listened: look once.
                                onChange(.workAvailable)
                                onChange(.finished)
                                try await withThrowingTaskGroup(of: Void.self) { group in
                                    group.addTask { for try await _ in work { onChange(.workAvailable) } }
                                    group.addTask { for try await _ in finished { onChange(.finished) } }
                                    try await group.next()
                                    group.cancelAll()
                                }
                            }
                        }
                    } onCancel: {
                        connection.close().whenComplete { _ in }
                    }
                } catch {
                    try? await connection.close()  // every connection is closed before it is let go
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { return }
                logger.debug("Store listener reconnecting", metadata: ["error.message": "\(Self.describe(error))"])
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }
}

extension PostgresReceiptStore {
    public var announcesChanges: Bool { true }
}

// MARK: Webhook outbox

extension PostgresReceiptStore {
    /// Whether this store has any webhook at all (server-wide, or a user's): without one,
    /// `recordWebhookEvent` would write nothing.
    static let anyWebhook = """
        (EXISTS (SELECT 1 FROM receipts.store_setting WHERE name = 'webhooks' AND value = 'on')
            OR EXISTS (SELECT 1 FROM receipts.webhook_subscription))
        """

    /// Writes the webhook events of a receipt that just finished, in the caller's transaction: the
    /// server-wide webhook's when webhooks are on in this store (see `WebhookEvent`), and one for
    /// each user's webhook whose user may see the receipt (`Principal.webhookSees`, the rule every
    /// read follows): its owner, its group's members, administrators; a webhook for one end user
    /// only gets that end user's receipts. The webhooks are read, the rule picks among them, and one
    /// statement writes the events (the setting read in it). The server-wide event has the id
    /// made here; each user's webhook's, one derived from it and the webhook's (unique, and made
    /// by any PostgreSQL, without an extension).
    static func recordWebhookEvent(_ receipt: Receipt, expense: Expense?, now: Date,
                                   _ connection: PostgresConnection, _ logger: Logger) async throws {
        let event = WebhookEvent(finished: receipt, expense: expense, now: now)
        var chosen: [UUID] = []
        let webhooks = try await connection.query("""
            SELECT s.id, s.user_name, s.external_user, a.is_admin,
                EXISTS (SELECT 1 FROM receipts.group_member m WHERE m.group_name = \(receipt.ownership.group) AND m.user_name = s.user_name)
            FROM receipts.webhook_subscription s JOIN receipts.account a ON a.name = s.user_name
            ORDER BY s.seq
            """, logger: logger)
        for try await (id, user, externalUser, isAdmin, member) in webhooks.decode((UUID, String, String?, Bool, Bool).self)
        where Principal.webhookSees(receipt, user: user, isAdmin: isAdmin, externalUser: externalUser, memberOfItsGroup: member) {
            chosen.append(id)
        }
        try await connection.query("""
            INSERT INTO receipts.webhook_event (id, receipt_id, subscription_id, type, body, created_at, pending_since, attempts,
                next_attempt_at)
            SELECT coalesce(md5(\(event.id)::text || t.id::text)::uuid, \(event.id)), \(event.receiptId), t.id, \(event.type),
                \(event.body), \(now), \(now), 0, \(now)
            FROM (
                SELECT NULL::uuid AS id, 0::bigint AS seq
                WHERE EXISTS (SELECT 1 FROM receipts.store_setting WHERE name = 'webhooks' AND value = 'on')
                UNION ALL
                SELECT c.id, c.seq FROM unnest(\(chosen)::uuid[]) WITH ORDINALITY AS c (id, seq)
            ) t
            ORDER BY t.seq
            """, logger: logger)
    }
}
