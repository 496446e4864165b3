import Foundation
import GRDB
import ReceiptModel
import ReceiptStorage

extension SQLiteReceiptStore: ServerStore {
    public func createToken(name: String, now: Date) async throws -> String {
        let secret = APIToken.newSecret()
        let hash = APIToken.hash(secret)
        try await write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT revokedAt FROM api_token WHERE name = ?", arguments: [name]) {
                guard (row["revokedAt"] as Date?) != nil else {
                    throw ReceiptError(.invalidState, "a token named '\(name)' is active; revoke it first or choose another name")
                }
                try db.execute(sql: "DELETE FROM api_token WHERE name = ?", arguments: [name])
            }
            try db.execute(sql: "INSERT INTO api_token (name, secretHash, createdAt) VALUES (?, ?, ?)", arguments: [name, hash, now])
        }
        return secret
    }

    public func tokens() async throws -> [APIToken] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT name, createdAt, revokedAt FROM api_token ORDER BY createdAt, name").map {
                APIToken(name: $0["name"], createdAt: $0["createdAt"], revokedAt: $0["revokedAt"])
            }
        }
    }

    public func revokeToken(name: String, now: Date) async throws -> APIToken {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT name, createdAt, revokedAt FROM api_token WHERE name = ?", arguments: [name]) else {
                throw ReceiptError(.notFound, "no token named '\(name)'")
            }
            let revoked: Date = row["revokedAt"] ?? now
            try db.execute(sql: "UPDATE api_token SET revokedAt = ? WHERE name = ?", arguments: [revoked, name])
            return APIToken(name: row["name"], createdAt: row["createdAt"], revokedAt: revoked)
        }
    }

    public func activeToken(secret: String) async throws -> String? {
        let hash = APIToken.hash(secret)
        return try await read { db in
            try String.fetchOne(db, sql: "SELECT name FROM api_token WHERE secretHash = ? AND revokedAt IS NULL", arguments: [hash])
        }
    }

    public func hasActiveTokens() async throws -> Bool {
        try await read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM api_token WHERE revokedAt IS NULL)") ?? false }
    }

    public func claimIdempotencyKey(_ key: String, fingerprint: String, now: Date) async throws -> IdempotencyClaim {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO idempotency_key (key, fingerprint, receiptId, createdAt) VALUES (?, ?, NULL, ?)
                ON CONFLICT(key) DO NOTHING
                """, arguments: [key, fingerprint, now])
            if db.changesCount == 1 { return .claimed }
            let row = try Row.fetchOne(db, sql: "SELECT fingerprint, receiptId FROM idempotency_key WHERE key = ?", arguments: [key])
            return .taken(fingerprint: row?["fingerprint"] ?? "", receiptId: row.flatMap { StoreRows.uuid($0, "receiptId") })
        }
    }

    public func bindIdempotencyKey(_ key: String, receiptId: UUID) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE idempotency_key SET receiptId = ? WHERE key = ?", arguments: [StoreRows.text(receiptId), key])
        }
    }

    public func releaseIdempotencyKey(_ key: String, fingerprint: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM idempotency_key WHERE key = ? AND fingerprint = ? AND receiptId IS NULL",
                           arguments: [key, fingerprint])
        }
    }
}
