import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptServerStore
import ReceiptStorage

extension PostgresReceiptStore: ServerStore {
    public func createToken(name: String, user: String, scopes: Set<TokenPermission>, expiresAt: Date?, rateLimit: RateLimit?,
                            now: Date) async throws -> String {
        let secret = APIToken.newSecret()
        let (scopeText, requests, seconds) = (TokenPermission.text(scopes), rateLimit?.requests, rateLimit?.seconds)
        let location = self.location
        let created = try await transaction { connection in
            // The user is locked (FOR SHARE) so that it cannot be removed while its token is made.
            guard try await !connection.query("SELECT 1 FROM receipts.account WHERE name = \(user) FOR SHARE",
                                              logger: self.logger).collect().isEmpty else {
                throw ReceiptError(.notFound, "no user named '\(user)' (see `receipts user list`, `receipts user add`)", file: location)
            }
            // A revoked token's name may be used again: the revoked token is forgotten.
            try await connection.query("DELETE FROM receipts.api_token WHERE name = \(name) AND revoked_at IS NOT NULL", logger: self.logger)
            return try await !connection.query("""
                INSERT INTO receipts.api_token (name, user_name, secret_hash, created_at, scopes, expires_at, rate_limit_requests,
                    rate_limit_seconds)
                VALUES (\(name), \(user), \(APIToken.hash(secret)), \(now), \(scopeText), \(expiresAt), \(requests), \(seconds))
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """, logger: self.logger).collect().isEmpty
        }
        guard created else {
            throw ReceiptError(.invalidState, "a token named '\(name)' is active; revoke it first or choose another name")
        }
        return secret
    }

    private static let tokenColumns =
        "name, user_name, created_at, revoked_at, scopes, expires_at, last_used_at, rate_limit_requests, rate_limit_seconds"

    private static func token(_ row: PostgresRow) throws -> APIToken {
        let (name, user, created, revoked, scopes, expires, used, requests, seconds) =
            try row.decode((String, String, Date, Date?, String, Date?, Date?, Int?, Int?).self)
        return APIToken(name: name, user: user, createdAt: created, revokedAt: revoked,
                        // A scope this build does not know (written by a newer one) grants nothing here.
                        scopes: Set(scopes.split(separator: ",").compactMap { TokenPermission(rawValue: String($0)) }),
                        expiresAt: expires, lastUsedAt: used, rateLimit: requests.map { RateLimit(requests: $0, seconds: seconds ?? 60) })
    }

    public func tokens() async throws -> [APIToken] {
        try await rows("SELECT \(unescaped: Self.tokenColumns) FROM receipts.api_token ORDER BY created_at, name").map(Self.token)
    }

    public func revokeToken(name: String, now: Date) async throws -> APIToken {
        let rows = try await rows("""
            UPDATE receipts.api_token SET revoked_at = coalesce(revoked_at, \(now)) WHERE name = \(name)
            RETURNING \(unescaped: Self.tokenColumns)
            """)
        guard let row = rows.first else { throw ReceiptError(.notFound, "no token named '\(name)'") }
        return try Self.token(row)
    }

    public func token(secret: String) async throws -> APIToken? {
        try await rows("""
            SELECT \(unescaped: Self.tokenColumns) FROM receipts.api_token
            WHERE secret_hash = \(APIToken.hash(secret)) AND revoked_at IS NULL
            """).first.map(Self.token)
    }

    public func recordTokenUse(name: String, at: Date) async throws {
        try await execute("""
            UPDATE receipts.api_token SET last_used_at = \(at) WHERE name = \(name) AND (last_used_at IS NULL OR last_used_at < \(at))
            """)
    }

    public func hasActiveTokens() async throws -> Bool {
        try await rows("SELECT EXISTS (SELECT 1 FROM receipts.api_token WHERE revoked_at IS NULL)").first?.decode(Bool.self) ?? false
    }

    public func canAnyoneSignIn(now: Date) async throws -> Bool {
        try await rows("""
            SELECT EXISTS (SELECT 1 FROM receipts.api_token WHERE revoked_at IS NULL)
                OR EXISTS (SELECT 1 FROM receipts.account_password)
                OR EXISTS (SELECT 1 FROM receipts.passkey)
                OR EXISTS (SELECT 1 FROM receipts.invitation WHERE used_at IS NULL AND revoked_at IS NULL AND expires_at > \(now))
                OR EXISTS (SELECT 1 FROM receipts.web_session WHERE token_name IS NULL AND expires_at > \(now))
            """).first?.decode(Bool.self) ?? true
    }

    public func claimIdempotencyKey(_ key: String, of owner: Principal, fingerprint: String, now: Date) async throws -> IdempotencyClaim {
        let (user, external) = (owner.user, owner.externalUser ?? "")
        return try await transaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO receipts.idempotency_key (owner, external_user, key, fingerprint, receipt_id, created_at)
                VALUES (\(user), \(external), \(key), \(fingerprint), NULL, \(now))
                ON CONFLICT (owner, external_user, key) DO NOTHING RETURNING 1
                """, logger: self.logger).collect()
            if !inserted.isEmpty { return .claimed }
            guard let row = try await connection.query("""
                SELECT fingerprint, receipt_id FROM receipts.idempotency_key
                WHERE owner = \(user) AND external_user = \(external) AND key = \(key)
                """, logger: self.logger).collect().first else {
                // Released between the two statements: the caller asks again.
                return .taken(fingerprint: fingerprint, receiptId: nil)
            }
            let (known, receipt) = try row.decode((String, UUID?).self)
            return .taken(fingerprint: known, receiptId: receipt)
        }
    }

    public func bindIdempotencyKey(_ key: String, of owner: Principal, receiptId: UUID) async throws {
        try await execute("""
            UPDATE receipts.idempotency_key SET receipt_id = \(receiptId)
            WHERE owner = \(owner.user) AND external_user = \(owner.externalUser ?? "") AND key = \(key)
            """)
    }

    public func releaseIdempotencyKey(_ key: String, of owner: Principal, fingerprint: String) async throws {
        try await execute("""
            DELETE FROM receipts.idempotency_key
            WHERE owner = \(owner.user) AND external_user = \(owner.externalUser ?? "") AND key = \(key)
                AND fingerprint = \(fingerprint) AND receipt_id IS NULL
            """)
    }
}
