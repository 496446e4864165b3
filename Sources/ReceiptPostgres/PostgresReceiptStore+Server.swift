import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

extension PostgresReceiptStore {
    public func createToken(name: String, now: Date) async throws -> String {
        let secret = APIToken.newSecret()
        let created = try await transaction { connection in
            // A revoked token's name may be used again: the revoked token is forgotten.
            try await connection.query("DELETE FROM receipts.api_token WHERE name = \(name) AND revoked_at IS NOT NULL", logger: self.logger)
            return try await !connection.query("""
                INSERT INTO receipts.api_token (name, secret_hash, created_at) VALUES (\(name), \(APIToken.hash(secret)), \(now))
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """, logger: self.logger).collect().isEmpty
        }
        guard created else {
            throw ReceiptError(.invalidState, "a token named '\(name)' is active; revoke it first or choose another name")
        }
        return secret
    }

    public func tokens() async throws -> [APIToken] {
        try await rows("SELECT name, created_at, revoked_at FROM receipts.api_token ORDER BY created_at, name").map {
            let (name, created, revoked) = try $0.decode((String, Date, Date?).self)
            return APIToken(name: name, createdAt: created, revokedAt: revoked)
        }
    }

    public func revokeToken(name: String, now: Date) async throws -> APIToken {
        let rows = try await rows("""
            UPDATE receipts.api_token SET revoked_at = coalesce(revoked_at, \(now)) WHERE name = \(name)
            RETURNING name, created_at, revoked_at
            """)
        guard let row = rows.first else { throw ReceiptError(.notFound, "no token named '\(name)'") }
        let (found, created, revoked) = try row.decode((String, Date, Date?).self)
        return APIToken(name: found, createdAt: created, revokedAt: revoked)
    }

    public func activeToken(secret: String) async throws -> String? {
        try await rows("SELECT name FROM receipts.api_token WHERE secret_hash = \(APIToken.hash(secret)) AND revoked_at IS NULL")
            .first?.decode(String.self)
    }

    public func hasActiveTokens() async throws -> Bool {
        try await rows("SELECT EXISTS (SELECT 1 FROM receipts.api_token WHERE revoked_at IS NULL)").first?.decode(Bool.self) ?? false
    }

    public func claimIdempotencyKey(_ key: String, fingerprint: String, now: Date) async throws -> IdempotencyClaim {
        try await transaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO receipts.idempotency_key (key, fingerprint, receipt_id, created_at) VALUES (\(key), \(fingerprint), NULL, \(now))
                ON CONFLICT (key) DO NOTHING RETURNING 1
                """, logger: self.logger).collect()
            if !inserted.isEmpty { return .claimed }
            guard let row = try await connection.query(
                "SELECT fingerprint, receipt_id FROM receipts.idempotency_key WHERE key = \(key)", logger: self.logger).collect().first else {
                // Released between the two statements: the caller asks again.
                return .taken(fingerprint: fingerprint, receiptId: nil)
            }
            let (known, receipt) = try row.decode((String, UUID?).self)
            return .taken(fingerprint: known, receiptId: receipt)
        }
    }

    public func bindIdempotencyKey(_ key: String, receiptId: UUID) async throws {
        try await execute("UPDATE receipts.idempotency_key SET receipt_id = \(receiptId) WHERE key = \(key)")
    }

    public func releaseIdempotencyKey(_ key: String, fingerprint: String) async throws {
        try await execute("DELETE FROM receipts.idempotency_key WHERE key = \(key) AND fingerprint = \(fingerprint) AND receipt_id IS NULL")
    }

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

// MARK: Copying another store in

/// What became of a receipt copied in (`PostgresReceiptStore.importReceipt`).
public enum ImportedReceipt: Sendable, Equatable {
    /// Copied, with its expense.
    case copied
    /// A receipt with this id is here already (copied before): nothing was written.
    case alreadyThere
    /// The same bytes are this store's receipt `id` already: nothing was written (same bytes,
    /// same receipt, as for any submission).
    case sameImage(UUID)
}

extension PostgresReceiptStore {
    /// Adds a receipt copied from another store, as it is (status, attempts, times), with its
    /// expense and that expense's corrections; a receipt that was `processing` there comes in
    /// `pending` (its worker's lease does not carry over). Copying again is harmless: a receipt
    /// whose id is here already is skipped. So is the first receipt of some bytes (`isFirstCopy`)
    /// when this store already has a receipt of those bytes; a forced re-read of them (not the
    /// first copy) comes in beside it, as it was beside its first copy in the source.
    public func importReceipt(_ receipt: Receipt, imageRef: String?, expense: Expense?, corrections: JSONValue?,
                              isFirstCopy: Bool = true) async throws -> ImportedReceipt {
        var copy = receipt
        if copy.ocrStatus == .processing { copy.ocrStatus = .pending }
        let receipt = copy
        return try await transaction { connection in
            let known = try await connection.query("SELECT 1 FROM receipts.receipt WHERE id = \(receipt.id)",
                                                   logger: self.logger).collect()
            guard known.isEmpty else { return .alreadyThere }
            var inserted = false
            if let hash = receipt.contentHash {
                inserted = try await !connection.query(
                    PostgresRows.insertReceipt(receipt, imageRef: imageRef, primaryCopy: true,
                                               onConflictDoNothing: "(content_hash) WHERE primary_copy"),
                    logger: self.logger).collect().isEmpty
                if !inserted, isFirstCopy, let existing = try await connection.query(
                    "SELECT id FROM receipts.receipt WHERE content_hash = \(hash) AND primary_copy", logger: self.logger).collect().first {
                    return .sameImage(try existing.decode(UUID.self))
                }
            }
            if !inserted {
                try await connection.query(PostgresRows.insertReceipt(receipt, imageRef: imageRef, primaryCopy: false),
                                           logger: self.logger)
            }
            if var expense {
                // Links between expenses are set once all are in (`linkPossibleDuplicate`).
                expense.possibleDuplicateOf = nil
                try await connection.query(PostgresRows.insertExpense(expense, corrections: corrections.map { $0.serialized() },
                                                                      onConflictDoNothing: true), logger: self.logger)
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
