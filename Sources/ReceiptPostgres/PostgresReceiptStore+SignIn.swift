import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptServerStore
import ReceiptStorage

/// Sessions, invitations, passkeys, passwords and challenges in PostgreSQL (schema `v7-sign-in`).
/// What must happen once (an invitation used, a challenge taken, a counter moved) is one statement.
extension PostgresReceiptStore: SignInStore {
    // MARK: Sessions

    public func addSession(_ session: WebSession, secretHash: String) async throws {
        try await execute("""
            INSERT INTO receipts.web_session (id, secret_hash, user_name, method, token_name, created_at, last_used_at, expires_at, device, address)
            VALUES (\(session.id), \(secretHash), \(session.user), \(session.method), \(session.tokenName), \(session.createdAt),
                    \(session.lastUsedAt), \(session.expiresAt), \(session.device), \(session.address))
            """)
    }

    private static let sessionColumns = "s.id, s.user_name, s.method, s.token_name, s.created_at, s.last_used_at, s.expires_at, s.device, s.address"

    /// A session made with a token lives while that token does: not revoked, and not made again
    /// under its name since.
    private static let liveSession = """
        (s.token_name IS NULL OR EXISTS (
            SELECT 1 FROM receipts.api_token t WHERE t.name = s.token_name AND t.revoked_at IS NULL AND t.created_at <= s.created_at))
        """

    private static func session(_ row: PostgresRow) throws -> WebSession {
        let (id, user, method, token, created, used, expires, device, address) =
            try row.decode((String, String, String, String?, Date, Date, Date, String, String?).self)
        return WebSession(id: id, user: user, method: method, tokenName: token, createdAt: created, lastUsedAt: used, expiresAt: expires,
                          device: device, address: address)
    }

    public func session(secretHash: String, now: Date) async throws -> WebSession? {
        try await rows("""
            SELECT \(unescaped: Self.sessionColumns) FROM receipts.web_session s
            WHERE s.secret_hash = \(secretHash) AND s.expires_at > \(now) AND \(unescaped: Self.liveSession)
            """).first.map(Self.session)
    }

    public func touchSession(id: String, at: Date, expiresAt: Date) async throws {
        try await execute("""
            UPDATE receipts.web_session SET last_used_at = \(at), expires_at = \(expiresAt) WHERE id = \(id) AND last_used_at < \(at)
            """)
    }

    public func sessions(user: String?, now: Date) async throws -> [WebSession] {
        try await execute("DELETE FROM receipts.web_session WHERE expires_at <= \(now)")
        return try await rows("""
            SELECT \(unescaped: Self.sessionColumns) FROM receipts.web_session s
            WHERE (\(user)::text IS NULL OR s.user_name = \(user)) AND s.expires_at > \(now) AND \(unescaped: Self.liveSession)
            ORDER BY s.last_used_at DESC, s.id
            """).map(Self.session)
    }

    public func endSession(id: String, user: String?) async throws -> Bool {
        try await !rows("""
            DELETE FROM receipts.web_session WHERE id = \(id) AND (\(user)::text IS NULL OR user_name = \(user)) RETURNING 1
            """).isEmpty
    }

    public func endSessions(user: String) async throws -> Int {
        try await rows("DELETE FROM receipts.web_session WHERE user_name = \(user) RETURNING 1").count
    }

    // MARK: Invitations

    private static let invitationColumns = "id, user_name, created_by, created_at, expires_at, used_at, revoked_at"

    private static func invitation(_ row: PostgresRow) throws -> Invitation {
        let (id, user, by, created, expires, used, revoked) = try row.decode((String, String, String, Date, Date, Date?, Date?).self)
        return Invitation(id: id, user: user, createdBy: by, createdAt: created, expiresAt: expires, usedAt: used, revokedAt: revoked)
    }

    public func addInvitation(_ invitation: Invitation, secretHash: String) async throws {
        let location = self.location
        let added = try await rows("""
            INSERT INTO receipts.invitation (id, secret_hash, user_name, created_by, created_at, expires_at)
            SELECT \(invitation.id), \(secretHash), name, \(invitation.createdBy), \(invitation.createdAt), \(invitation.expiresAt)
            FROM receipts.account WHERE name = \(invitation.user)
            RETURNING 1
            """)
        guard !added.isEmpty else {
            throw ReceiptError(.notFound, "no user named '\(invitation.user)' (add them first: `receipts user add \(invitation.user)`)", file: location)
        }
    }

    public func invitation(secretHash: String) async throws -> Invitation? {
        try await rows("SELECT \(unescaped: Self.invitationColumns) FROM receipts.invitation WHERE secret_hash = \(secretHash)")
            .first.map(Self.invitation)
    }

    public func useInvitation(secretHash: String, now: Date) async throws -> (invitation: Invitation, taken: Bool)? {
        // Taken when this statement's update took it; otherwise the row as it is (another may have taken it first).
        guard let row = try await rows("""
            WITH used AS (UPDATE receipts.invitation SET used_at = \(now)
                          WHERE secret_hash = \(secretHash) AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(now)
                          RETURNING \(unescaped: Self.invitationColumns))
            SELECT \(unescaped: Self.invitationColumns), true FROM used
            UNION ALL
            SELECT \(unescaped: Self.invitationColumns), false FROM receipts.invitation
            WHERE secret_hash = \(secretHash) AND NOT EXISTS (SELECT 1 FROM used)
            """).first else { return nil }
        let (id, user, by, created, expires, used, revoked, taken) = try row.decode((String, String, String, Date, Date, Date?, Date?, Bool).self)
        return (Invitation(id: id, user: user, createdBy: by, createdAt: created, expiresAt: expires, usedAt: used, revokedAt: revoked), taken)
    }

    public func invitations(user: String?) async throws -> [Invitation] {
        try await rows("""
            SELECT \(unescaped: Self.invitationColumns) FROM receipts.invitation WHERE \(user)::text IS NULL OR user_name = \(user)
            ORDER BY created_at DESC, id
            """).map(Self.invitation)
    }

    public func revokeInvitation(id: String, now: Date) async throws -> Invitation {
        guard let row = try await rows("""
            UPDATE receipts.invitation SET revoked_at = coalesce(revoked_at, \(now)) WHERE id = \(id) RETURNING \(unescaped: Self.invitationColumns)
            """).first else {
            throw ReceiptError(.notFound, "no invitation with ID '\(id)' (see `receipts user invitations`)")
        }
        return try Self.invitation(row)
    }

    // MARK: Passkeys

    private static let passkeyColumns = "id, user_name, user_handle, name, public_key, algorithm, sign_count, created_at, last_used_at"

    private static func passkey(_ row: PostgresRow) throws -> Passkey {
        let (id, user, handle, name, key, algorithm, count, created, used) =
            try row.decode((String, String, String, String, Data, Int, Int64, Date, Date?).self)
        return Passkey(id: id, user: user, userHandle: handle, name: name, publicKey: [UInt8](key), algorithm: algorithm,
                       signCount: UInt32(clamping: count), createdAt: created, lastUsedAt: used)
    }

    public func addPasskey(_ passkey: Passkey) async throws {
        let added = try await rows("""
            INSERT INTO receipts.passkey (id, user_name, user_handle, name, public_key, algorithm, sign_count, created_at)
            VALUES (\(passkey.id), \(passkey.user), \(passkey.userHandle), \(passkey.name), \(Data(passkey.publicKey)), \(passkey.algorithm),
                    \(Int64(passkey.signCount)), \(passkey.createdAt))
            ON CONFLICT (id) DO NOTHING RETURNING 1
            """)
        guard !added.isEmpty else { throw ReceiptError(.invalidState, "this passkey is registered already") }
    }

    public func passkey(id: String) async throws -> Passkey? {
        try await rows("SELECT \(unescaped: Self.passkeyColumns) FROM receipts.passkey WHERE id = \(id)").first.map(Self.passkey)
    }

    public func passkeys(user: String) async throws -> [Passkey] {
        try await rows("SELECT \(unescaped: Self.passkeyColumns) FROM receipts.passkey WHERE user_name = \(user) ORDER BY created_at, id")
            .map(Self.passkey)
    }

    public func recordPasskeyUse(id: String, previous: UInt32, signCount: UInt32, at: Date) async throws -> Bool {
        try await !rows("""
            UPDATE receipts.passkey SET sign_count = \(Int64(signCount)), last_used_at = \(at)
            WHERE id = \(id) AND sign_count = \(Int64(previous)) RETURNING 1
            """).isEmpty
    }

    public func renamePasskey(id: String, user: String, name: String) async throws {
        guard try await !rows("UPDATE receipts.passkey SET name = \(name) WHERE id = \(id) AND user_name = \(user) RETURNING 1").isEmpty else {
            throw ReceiptError(.notFound, "no passkey of \(user) with this ID")
        }
    }

    public func removePasskey(id: String, user: String) async throws {
        guard try await !rows("DELETE FROM receipts.passkey WHERE id = \(id) AND user_name = \(user) RETURNING 1").isEmpty else {
            throw ReceiptError(.notFound, "no passkey of \(user) with this ID")
        }
    }

    // MARK: Passwords

    public func setPasswordHash(user: String, hash: String?, now: Date) async throws {
        let location = self.location
        guard try await !rows("SELECT 1 FROM receipts.account WHERE name = \(user)").isEmpty else {
            throw ReceiptError(.notFound, "no user named '\(user)' (see `receipts user list`)", file: location)
        }
        if let hash {
            try await execute("""
                INSERT INTO receipts.account_password (user_name, hash, updated_at) VALUES (\(user), \(hash), \(now))
                ON CONFLICT (user_name) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at
                """)
        } else {
            try await execute("DELETE FROM receipts.account_password WHERE user_name = \(user)")
        }
    }

    public func passwordHash(user: String) async throws -> String? {
        try await rows("SELECT hash FROM receipts.account_password WHERE user_name = \(user)").first.map { try $0.decode(String.self) }
    }

    // MARK: Challenges, public URL

    public func addChallenge(hash: String, purpose: String, user: String?, expiresAt: Date) async throws {
        try await execute("""
            INSERT INTO receipts.webauthn_challenge (hash, purpose, user_name, expires_at) VALUES (\(hash), \(purpose), \(user), \(expiresAt))
            """)
    }

    public func takeChallenge(hash: String, purpose: String, user: String?, now: Date) async throws -> Bool {
        let taken = try await rows("""
            DELETE FROM receipts.webauthn_challenge WHERE hash = \(hash) OR expires_at <= \(now)
            RETURNING hash, purpose, user_name, expires_at
            """)
        for row in taken {
            let (found, kept, owner, expires) = try row.decode((String, String, String?, Date).self)
            if found == hash { return kept == purpose && owner == user && expires > now }
        }
        return false
    }

    public func publicURL() async throws -> String? {
        try await rows("SELECT value FROM receipts.store_setting WHERE name = 'public_url'").first.map { try $0.decode(String.self) }
    }

    public func setPublicURL(_ url: String?) async throws {
        if let url {
            try await execute("""
                INSERT INTO receipts.store_setting (name, value) VALUES ('public_url', \(url)) ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """)
        } else {
            try await execute("DELETE FROM receipts.store_setting WHERE name = 'public_url'")
        }
    }
}
