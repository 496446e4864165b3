import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptServerStore
import ReceiptStorage

extension PostgresReceiptStore: ServerStore {
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
}
