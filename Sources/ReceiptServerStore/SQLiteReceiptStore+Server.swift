import Foundation
import GRDB
import ReceiptModel
import ReceiptStorage

extension SQLiteReceiptStore: ServerStore {
    public func createToken(name: String, user: String, scopes: Set<TokenPermission>, expiresAt: Date?, rateLimit: RateLimit?,
                            now: Date) async throws -> String {
        let secret = APIToken.newSecret()
        let hash = APIToken.hash(secret)
        let location = self.location
        try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM account WHERE name = ?)", arguments: [user]) == true else {
                throw ReceiptError(.notFound, "no user named '\(user)' (see `receipts user list`, `receipts user add`)", file: location)
            }
            if let row = try Row.fetchOne(db, sql: "SELECT revokedAt FROM api_token WHERE name = ?", arguments: [name]) {
                guard (row["revokedAt"] as Date?) != nil else {
                    throw ReceiptError(.invalidState, "a token named '\(name)' is active; revoke it first or choose another name")
                }
                try db.execute(sql: "DELETE FROM api_token WHERE name = ?", arguments: [name])
            }
            try db.execute(sql: """
                INSERT INTO api_token (name, userName, secretHash, createdAt, scopes, expiresAt, rateLimitRequests, rateLimitSeconds)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [name, user, hash, now, TokenPermission.text(scopes), expiresAt, rateLimit?.requests, rateLimit?.seconds])
        }
        return secret
    }

    private static let tokenColumns = "name, userName, createdAt, revokedAt, scopes, expiresAt, lastUsedAt, rateLimitRequests, rateLimitSeconds"

    private static func token(_ row: Row) -> APIToken {
        let requests: Int? = row["rateLimitRequests"], seconds: Int? = row["rateLimitSeconds"]
        return APIToken(name: row["name"], user: row["userName"], createdAt: row["createdAt"], revokedAt: row["revokedAt"],
                        // A scope this build does not know (written by a newer one) grants nothing here.
                        scopes: Set((row["scopes"] as String).split(separator: ",").compactMap { TokenPermission(rawValue: String($0)) }),
                        expiresAt: row["expiresAt"], lastUsedAt: row["lastUsedAt"],
                        rateLimit: requests.map { RateLimit(requests: $0, seconds: seconds ?? 60) })
    }

    public func tokens() async throws -> [APIToken] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.tokenColumns) FROM api_token ORDER BY createdAt, name").map(Self.token)
        }
    }

    public func revokeToken(name: String, now: Date) async throws -> APIToken {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT \(Self.tokenColumns) FROM api_token WHERE name = ?", arguments: [name]) else {
                throw ReceiptError(.notFound, "no token named '\(name)'")
            }
            var token = Self.token(row)
            token.revokedAt = token.revokedAt ?? now
            try db.execute(sql: "UPDATE api_token SET revokedAt = ? WHERE name = ?", arguments: [token.revokedAt, name])
            return token
        }
    }

    public func token(secret: String) async throws -> APIToken? {
        let hash = APIToken.hash(secret)
        return try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.tokenColumns) FROM api_token WHERE secretHash = ? AND revokedAt IS NULL",
                             arguments: [hash]).map(Self.token)
        }
    }

    public func recordTokenUse(name: String, at: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE api_token SET lastUsedAt = ? WHERE name = ? AND (lastUsedAt IS NULL OR lastUsedAt < ?)",
                           arguments: [at, name, at])
        }
    }

    public func hasActiveTokens() async throws -> Bool {
        try await read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM api_token WHERE revokedAt IS NULL)") ?? false }
    }

    public func canAnyoneSignIn(now: Date) async throws -> Bool {
        try await read { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM api_token WHERE revokedAt IS NULL)
                    OR EXISTS (SELECT 1 FROM account_password)
                    OR EXISTS (SELECT 1 FROM passkey)
                    OR EXISTS (SELECT 1 FROM invitation WHERE usedAt IS NULL AND revokedAt IS NULL AND expiresAt > ?)
                    OR EXISTS (SELECT 1 FROM web_session WHERE tokenName IS NULL AND expiresAt > ?)
                """, arguments: [now, now]) ?? true
        }
    }

    public func claimIdempotencyKey(_ key: String, of owner: Principal, fingerprint: String, now: Date) async throws -> IdempotencyClaim {
        try await write { db in
            let (user, external) = (owner.user, owner.externalUser ?? "")
            try db.execute(sql: """
                INSERT INTO idempotency_key (owner, externalUser, key, fingerprint, receiptId, createdAt) VALUES (?, ?, ?, ?, NULL, ?)
                ON CONFLICT(owner, externalUser, key) DO NOTHING
                """, arguments: [user, external, key, fingerprint, now])
            if db.changesCount == 1 { return .claimed }
            let row = try Row.fetchOne(db, sql: "SELECT fingerprint, receiptId FROM idempotency_key WHERE owner = ? AND externalUser = ? AND key = ?",
                                       arguments: [user, external, key])
            return .taken(fingerprint: row?["fingerprint"] ?? "", receiptId: row.flatMap { StoreRows.uuid($0, "receiptId") })
        }
    }

    public func bindIdempotencyKey(_ key: String, of owner: Principal, receiptId: UUID) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE idempotency_key SET receiptId = ? WHERE owner = ? AND externalUser = ? AND key = ?",
                           arguments: [StoreRows.text(receiptId), owner.user, owner.externalUser ?? "", key])
        }
    }

    public func releaseIdempotencyKey(_ key: String, of owner: Principal, fingerprint: String) async throws {
        try await write { db in
            try db.execute(sql: """
                DELETE FROM idempotency_key WHERE owner = ? AND externalUser = ? AND key = ? AND fingerprint = ? AND receiptId IS NULL
                """, arguments: [owner.user, owner.externalUser ?? "", key, fingerprint])
        }
    }
}
