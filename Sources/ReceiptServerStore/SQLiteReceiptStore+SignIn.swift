import Foundation
import GRDB
import ReceiptModel
import ReceiptStorage

/// Sessions, invitations, passkeys, passwords and challenges in SQLite (schema `v10-sign-in`).
extension SQLiteReceiptStore: SignInStore {
    // MARK: Sessions

    public func addSession(_ session: WebSession, secretHash: String) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO web_session (id, secretHash, userName, method, tokenName, createdAt, lastUsedAt, expiresAt, device, address)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [session.id, secretHash, session.user, session.method, session.tokenName, session.createdAt,
                                 session.lastUsedAt, session.expiresAt, session.device, session.address])
        }
    }

    /// A session made with a token lives while that token does: not revoked, and not made again
    /// under its name since.
    private static let liveSession = """
        s.expiresAt > ? AND (s.tokenName IS NULL OR EXISTS (
            SELECT 1 FROM api_token t WHERE t.name = s.tokenName AND t.revokedAt IS NULL AND t.createdAt <= s.createdAt))
        """

    private static func session(_ row: Row) -> WebSession {
        WebSession(id: row["id"], user: row["userName"], method: row["method"], tokenName: row["tokenName"], createdAt: row["createdAt"],
                   lastUsedAt: row["lastUsedAt"], expiresAt: row["expiresAt"], device: row["device"], address: row["address"])
    }

    public func session(secretHash: String, now: Date) async throws -> WebSession? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT s.* FROM web_session s WHERE s.secretHash = ? AND \(Self.liveSession)",
                             arguments: [secretHash, now]).map(Self.session)
        }
    }

    public func touchSession(id: String, at: Date, expiresAt: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE web_session SET lastUsedAt = ?, expiresAt = ? WHERE id = ? AND lastUsedAt < ?",
                           arguments: [at, expiresAt, id, at])
        }
    }

    public func sessions(user: String?, now: Date) async throws -> [WebSession] {
        try await write { db in
            try db.execute(sql: "DELETE FROM web_session WHERE expiresAt <= ?", arguments: [now])
            return try Row.fetchAll(db, sql: """
                SELECT s.* FROM web_session s WHERE (? IS NULL OR s.userName = ?) AND \(Self.liveSession)
                ORDER BY s.lastUsedAt DESC, s.id
                """, arguments: [user, user, now]).map(Self.session)
        }
    }

    public func endSession(id: String, user: String?) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM web_session WHERE id = ? AND (? IS NULL OR userName = ?)", arguments: [id, user, user])
            return db.changesCount > 0
        }
    }

    public func endSessions(user: String) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM web_session WHERE userName = ?", arguments: [user])
            return db.changesCount
        }
    }

    // MARK: Invitations

    private static func invitation(_ row: Row) -> Invitation {
        Invitation(id: row["id"], user: row["userName"], createdBy: row["createdBy"], createdAt: row["createdAt"], expiresAt: row["expiresAt"],
                   usedAt: row["usedAt"], revokedAt: row["revokedAt"])
    }

    public func addInvitation(_ invitation: Invitation, secretHash: String) async throws {
        let location = self.location
        try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM account WHERE name = ?)", arguments: [invitation.user]) == true else {
                throw ReceiptError(.notFound, "no user named '\(invitation.user)' (add them first: `receipts user add \(invitation.user)`)",
                                   file: location)
            }
            try db.execute(sql: """
                INSERT INTO invitation (id, secretHash, userName, createdBy, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [invitation.id, secretHash, invitation.user, invitation.createdBy, invitation.createdAt, invitation.expiresAt])
        }
    }

    public func invitation(secretHash: String) async throws -> Invitation? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM invitation WHERE secretHash = ?", arguments: [secretHash]).map(Self.invitation)
        }
    }

    public func useInvitation(secretHash: String, now: Date) async throws -> (invitation: Invitation, taken: Bool)? {
        try await write { db in
            try db.execute(sql: """
                UPDATE invitation SET usedAt = ? WHERE secretHash = ? AND usedAt IS NULL AND revokedAt IS NULL AND expiresAt > ?
                """, arguments: [now, secretHash, now])
            let taken = db.changesCount == 1
            return try Row.fetchOne(db, sql: "SELECT * FROM invitation WHERE secretHash = ?", arguments: [secretHash])
                .map { (Self.invitation($0), taken) }
        }
    }

    public func invitations(user: String?) async throws -> [Invitation] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM invitation WHERE ? IS NULL OR userName = ? ORDER BY createdAt DESC, id",
                             arguments: [user, user]).map(Self.invitation)
        }
    }

    public func revokeInvitation(id: String, now: Date) async throws -> Invitation {
        try await write { db in
            try db.execute(sql: "UPDATE invitation SET revokedAt = coalesce(revokedAt, ?) WHERE id = ?", arguments: [now, id])
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM invitation WHERE id = ?", arguments: [id]) else {
                throw ReceiptError(.notFound, "no invitation with ID '\(id)' (see `receipts user invitations`)")
            }
            return Self.invitation(row)
        }
    }

    // MARK: Passkeys

    private static func passkey(_ row: Row) -> Passkey {
        Passkey(id: row["id"], user: row["userName"], userHandle: row["userHandle"], name: row["name"], publicKey: [UInt8](row["publicKey"] as Data),
                algorithm: row["algorithm"], signCount: UInt32(clamping: row["signCount"] as Int64), createdAt: row["createdAt"],
                lastUsedAt: row["lastUsedAt"])
    }

    public func addPasskey(_ passkey: Passkey) async throws {
        try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM passkey WHERE id = ?)", arguments: [passkey.id]) == false else {
                throw ReceiptError(.invalidState, "this passkey is registered already")
            }
            try db.execute(sql: """
                INSERT INTO passkey (id, userName, userHandle, name, publicKey, algorithm, signCount, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [passkey.id, passkey.user, passkey.userHandle, passkey.name, Data(passkey.publicKey), passkey.algorithm,
                                 Int64(passkey.signCount), passkey.createdAt])
        }
    }

    public func passkey(id: String) async throws -> Passkey? {
        try await read { db in try Row.fetchOne(db, sql: "SELECT * FROM passkey WHERE id = ?", arguments: [id]).map(Self.passkey) }
    }

    public func passkeys(user: String) async throws -> [Passkey] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM passkey WHERE userName = ? ORDER BY createdAt, id", arguments: [user]).map(Self.passkey)
        }
    }

    public func recordPasskeyUse(id: String, previous: UInt32, signCount: UInt32, at: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE passkey SET signCount = ?, lastUsedAt = ? WHERE id = ? AND signCount = ?",
                           arguments: [Int64(signCount), at, id, Int64(previous)])
            return db.changesCount == 1
        }
    }

    public func renamePasskey(id: String, user: String, name: String) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE passkey SET name = ? WHERE id = ? AND userName = ?", arguments: [name, id, user])
            guard db.changesCount == 1 else { throw ReceiptError(.notFound, "no passkey of \(user) with this ID") }
        }
    }

    public func removePasskey(id: String, user: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM passkey WHERE id = ? AND userName = ?", arguments: [id, user])
            guard db.changesCount == 1 else { throw ReceiptError(.notFound, "no passkey of \(user) with this ID") }
        }
    }

    // MARK: Passwords

    public func setPasswordHash(user: String, hash: String?, now: Date) async throws {
        let location = self.location
        try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM account WHERE name = ?)", arguments: [user]) == true else {
                throw ReceiptError(.notFound, "no user named '\(user)' (see `receipts user list`)", file: location)
            }
            if let hash {
                try db.execute(sql: """
                    INSERT INTO account_password (userName, hash, updatedAt) VALUES (?, ?, ?)
                    ON CONFLICT(userName) DO UPDATE SET hash = excluded.hash, updatedAt = excluded.updatedAt
                    """, arguments: [user, hash, now])
            } else {
                try db.execute(sql: "DELETE FROM account_password WHERE userName = ?", arguments: [user])
            }
        }
    }

    public func passwordHash(user: String) async throws -> String? {
        try await read { db in try String.fetchOne(db, sql: "SELECT hash FROM account_password WHERE userName = ?", arguments: [user]) }
    }

    // MARK: Challenges, public URL

    public func addChallenge(hash: String, purpose: String, user: String?, expiresAt: Date) async throws {
        try await write { db in
            try db.execute(sql: "INSERT INTO webauthn_challenge (hash, purpose, userName, expiresAt) VALUES (?, ?, ?, ?)",
                           arguments: [hash, purpose, user, expiresAt])
        }
    }

    public func takeChallenge(hash: String, purpose: String, user: String?, now: Date) async throws -> Bool {
        try await write { db in
            let row = try Row.fetchOne(db, sql: "SELECT * FROM webauthn_challenge WHERE hash = ?", arguments: [hash])
            try db.execute(sql: "DELETE FROM webauthn_challenge WHERE hash = ? OR expiresAt <= ?", arguments: [hash, now])
            guard let row else { return false }
            return (row["purpose"] as String) == purpose && (row["userName"] as String?) == user && (row["expiresAt"] as Date) > now
        }
    }

    public func publicURL() async throws -> String? {
        try await read { db in try String.fetchOne(db, sql: "SELECT value FROM store_setting WHERE name = 'public_url'") }
    }

    public func setPublicURL(_ url: String?) async throws {
        try await write { db in
            if let url {
                try db.execute(sql: """
                    INSERT INTO store_setting (name, value) VALUES ('public_url', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value
                    """, arguments: [url])
            } else {
                try db.execute(sql: "DELETE FROM store_setting WHERE name = 'public_url'")
            }
        }
    }
}
