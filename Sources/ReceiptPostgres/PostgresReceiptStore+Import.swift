import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptServerStore
import ReceiptStorage

// Copying another store in (`StoreCopier`).

/// What became of a receipt copied in (`PostgresReceiptStore.importReceipt`).
public enum ImportedReceipt: Sendable, Equatable {
    /// Copied, with its expense.
    case copied
    /// A receipt with this id is here already (copied before): nothing was written.
    case alreadyThere
    /// The same bytes are this store's receipt `id` already (of the same owner and end user):
    /// nothing was written (same bytes, same receipt, as for any submission).
    case sameImage(UUID)
}

/// How many of the users, groups, tokens and webhooks offered were copied in (those whose name or
/// id is here already are left as they are).
public struct ImportedAccounts: Sendable, Equatable {
    public var users = 0
    public var groups = 0
    public var members = 0
    public var tokens = 0
    public var webhooks = 0

    public init() {}
}

extension PostgresReceiptStore {
    /// Adds users, groups with their members, tokens (with the hash of their secret, from
    /// `secretHashes` by name; a token without one is not copied) and users' webhooks copied from
    /// another store, in one transaction. Copying again is harmless: a user, group, membership,
    /// token or webhook whose name (or id) is here already stays as it is — the `admin` every
    /// store is made with among them.
    public func importAccounts(users: [User], groups: [UserGroup], tokens: [APIToken], secretHashes: [String: String],
                               webhooks: [WebhookSubscription]) async throws -> ImportedAccounts {
        try await transaction { connection in
            var imported = ImportedAccounts()
            func inserted(_ query: PostgresQuery) async throws -> Bool {
                try await !connection.query(query, logger: self.logger).collect().isEmpty
            }
            // Groups first (a user's default group names one), then users, then what names them.
            for group in groups {
                if try await inserted("""
                    INSERT INTO receipts.account_group (name, created_at) VALUES (\(group.name), \(group.createdAt))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """) { imported.groups += 1 }
            }
            for user in users {
                if try await inserted("""
                    INSERT INTO receipts.account (name, is_admin, default_group, created_at)
                    VALUES (\(user.name), \(user.isAdmin), \(user.defaultGroup), \(user.createdAt))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """) { imported.users += 1 }
            }
            for group in groups {
                for (user, role) in group.members.sorted(by: { $0.key < $1.key }) {
                    if try await inserted("""
                        INSERT INTO receipts.group_member (group_name, user_name, role) VALUES (\(group.name), \(user), \(role.rawValue))
                        ON CONFLICT DO NOTHING RETURNING 1
                        """) { imported.members += 1 }
                }
            }
            for token in tokens {
                guard let hash = secretHashes[token.name] else { continue }
                let (requests, seconds) = (token.rateLimit?.requests, token.rateLimit?.seconds)
                // A name or a secret here already: the token stays out.
                if try await inserted("""
                    INSERT INTO receipts.api_token (name, user_name, secret_hash, created_at, revoked_at, scopes, expires_at, last_used_at,
                        rate_limit_requests, rate_limit_seconds)
                    VALUES (\(token.name), \(token.user), \(hash), \(token.createdAt), \(token.revokedAt), \(TokenPermission.text(token.scopes)),
                        \(token.expiresAt), \(token.lastUsedAt), \(requests), \(seconds))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """) { imported.tokens += 1 }
            }
            for webhook in webhooks {
                if try await inserted("""
                    INSERT INTO receipts.webhook_subscription (id, user_name, external_user, url, secret, created_at)
                    VALUES (\(webhook.id), \(webhook.user), \(webhook.externalUser), \(webhook.url.absoluteString), \(webhook.secret),
                        \(webhook.createdAt))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """) { imported.webhooks += 1 }
            }
            return imported
        }
    }

    /// Adds a receipt copied from another store, as it is (status, attempts, times, ownership),
    /// with the pictures of a receipt photographed in several (their bytes at their `imagePath`
    /// here already), its expense, that expense's corrections and its history of changes; a receipt that was
    /// `processing` there comes in `pending` (its worker's lease does not carry over). Copying
    /// again is harmless: a receipt whose id is here already is skipped. So is the first receipt
    /// of some bytes (`isFirstCopy`) when this store already has a receipt of those bytes for the
    /// same owner and end user; a forced re-read of them (not the first copy) comes in beside it,
    /// as it was beside its first copy in the source. Its owner (and group) must be here already
    /// (`importAccounts`): `.notFound` otherwise.
    public func importReceipt(_ receipt: Receipt, imageRef: String?, pictures: [StoredPicture] = [], expense: Expense?,
                              corrections: JSONValue?, history: [ExpenseChange] = [],
                              isFirstCopy: Bool = true) async throws -> ImportedReceipt {
        var copy = receipt
        if copy.ocrStatus == .processing { copy.ocrStatus = .pending }
        let receipt = copy
        let location = self.location
        return try await transaction { connection in
            let known = try await connection.query("SELECT 1 FROM receipts.receipt WHERE id = \(receipt.id)",
                                                   logger: self.logger).collect()
            guard known.isEmpty else { return .alreadyThere }
            try await Self.checkOwnership(receipt.ownership, connection, self.logger, file: location)
            var inserted = false
            if let hash = receipt.contentHash {
                inserted = try await !connection.query(
                    PostgresRows.insertReceipt(receipt, imageRef: imageRef, primaryCopy: true,
                                               onConflictDoNothing: PostgresRows.primaryCopyConflict),
                    logger: self.logger).collect().isEmpty
                let o = receipt.ownership
                if !inserted, isFirstCopy, let existing = try await connection.query("""
                    SELECT id FROM receipts.receipt WHERE owner = \(o.owner) AND coalesce(external_user, '') = \(o.externalUser ?? "")
                        AND content_hash = \(hash) AND primary_copy
                    """, logger: self.logger).collect().first {
                    return .sameImage(try existing.decode(UUID.self))
                }
            }
            if !inserted {
                try await connection.query(PostgresRows.insertReceipt(receipt, imageRef: imageRef, primaryCopy: false),
                                           logger: self.logger)
            }
            for picture in pictures { try await Self.insert(picture, of: receipt.id, connection, self.logger) }
            if var expense {
                // Links between expenses are set once all are in (`linkPossibleDuplicate`).
                expense.possibleDuplicateOf = nil
                try await connection.query(PostgresRows.insertExpense(expense, corrections: corrections.map { $0.serialized() },
                                                                      onConflictDoNothing: true), logger: self.logger)
                for change in history {
                    try await connection.query("""
                        INSERT INTO receipts.expense_change (expense_id, at, user_name, token_name, fields, confirmed)
                        VALUES (\(expense.id), \(change.at), \(change.author.user), \(change.author.token), \(change.fields), \(change.confirmed))
                        """, logger: self.logger)
                }
            }
            if receipt.ocrStatus == .pending { try await Self.notify(Self.workChannel, connection, self.logger) }
            return .copied
        }
    }

    /// Marks `expense` as a possible duplicate of `original` (both copied in).
    public func linkPossibleDuplicate(expense: UUID, original: UUID) async throws {
        try await execute("""
            UPDATE receipts.expense SET possible_duplicate_of = \(original)
            WHERE id = \(expense) AND EXISTS (SELECT 1 FROM receipts.expense WHERE id = \(original))
            """)
    }
}
