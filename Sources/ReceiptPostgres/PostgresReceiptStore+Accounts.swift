import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptServerStore
import ReceiptStorage

/// Users and groups in PostgreSQL (`account`, `account_group`, `group_member`: schema v5). Each
/// change is one transaction; a name is claimed by its insert (`ON CONFLICT DO NOTHING`), so two
/// hosts adding one name at once get one user and one "exists already". Names are listed in
/// byte order (`COLLATE "C"`), as SQLite lists them, whatever the database's locale.
extension PostgresReceiptStore {
    public func addUser(name: String, isAdmin: Bool, defaultGroup: String?, now: Date) async throws -> User {
        try Ownership.checkName(name, "user")
        let location = self.location
        return try await transaction { connection in
            if let defaultGroup {
                guard try await !connection.query("SELECT 1 FROM receipts.account_group WHERE name = \(defaultGroup) FOR SHARE",
                                                  logger: self.logger).collect().isEmpty else {
                    throw ReceiptError(.notFound, "no group named '\(defaultGroup)' (add it first: `receipts group add \(defaultGroup)`)",
                                       file: location)
                }
            }
            let inserted = try await connection.query("""
                INSERT INTO receipts.account (name, is_admin, default_group, created_at) VALUES (\(name), \(isAdmin), \(defaultGroup), \(now))
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """, logger: self.logger).collect()
            guard !inserted.isEmpty else {
                throw ReceiptError(.invalidState, "a user named '\(name)' exists already", file: location)
            }
            if let defaultGroup {
                try await connection.query("""
                    INSERT INTO receipts.group_member (group_name, user_name, role) VALUES (\(defaultGroup), \(name), 'editor')
                    ON CONFLICT DO NOTHING
                    """, logger: self.logger)
            }
            return User(name: name, isAdmin: isAdmin, defaultGroup: defaultGroup, createdAt: now)
        }
    }

    public func users() async throws -> [User] {
        try await rows("SELECT name, is_admin, default_group, created_at FROM receipts.account ORDER BY name COLLATE \"C\"").map(Self.user)
    }

    public func user(named name: String) async throws -> User? {
        try await rows("SELECT name, is_admin, default_group, created_at FROM receipts.account WHERE name = \(name)").first.map(Self.user)
    }

    private static func user(_ row: PostgresRow) throws -> User {
        let (name, isAdmin, defaultGroup, created) = try row.decode((String, Bool, String?, Date).self)
        return User(name: name, isAdmin: isAdmin, defaultGroup: defaultGroup, createdAt: created)
    }

    public func removeUser(name: String, reassignTo: String?) async throws -> Int {
        let location = self.location
        return try await transaction { connection in
            // Every administrator is locked: two administrators removing each other at once
            // cannot both go.
            let admins = try await connection.query("SELECT name FROM receipts.account WHERE is_admin FOR UPDATE", logger: self.logger)
                .collect().map { try $0.decode(String.self) }
            guard let row = try await connection.query("""
                SELECT name, is_admin, default_group, created_at FROM receipts.account WHERE name = \(name) FOR UPDATE
                """, logger: self.logger).collect().first else {
                throw ReceiptError(.notFound, "no user named '\(name)' (see `receipts user list`)", file: location)
            }
            if try Self.user(row).isAdmin, admins == [name] {
                throw ReceiptError(.invalidState, "'\(name)' is the last administrator; add another (`receipts user add NAME --admin`) first",
                                   file: location)
            }
            let owned = try await connection.query("SELECT count(*) FROM receipts.receipt WHERE owner = \(name)", logger: self.logger)
                .collect().first?.decode(Int.self) ?? 0
            if owned > 0 {
                guard let reassignTo else {
                    throw ReceiptError(.invalidState, "'\(name)' owns \(owned) receipt\(owned == 1 ? "" : "s"); "
                                       + "give them to another user with --reassign-to NAME, or delete them first", file: location)
                }
                guard reassignTo != name, try await !connection.query(
                    "SELECT 1 FROM receipts.account WHERE name = \(reassignTo) FOR SHARE", logger: self.logger).collect().isEmpty else {
                    throw ReceiptError(.notFound, "no other user named '\(reassignTo)' to give the receipts to", file: location)
                }
                // The bytes the new owner has already stay their first copy (one receipt per
                // owner's bytes); a purchase both had (the same bytes, or the same vendor, date and
                // total) names the new owner's earliest expense as its possible duplicate.
                try await connection.query("""
                    UPDATE receipts.receipt r SET primary_copy = false
                    WHERE r.owner = \(name) AND r.primary_copy AND EXISTS (
                        SELECT 1 FROM receipts.receipt o WHERE o.owner = \(reassignTo) AND o.primary_copy
                            AND coalesce(o.external_user, '') = coalesce(r.external_user, '') AND o.content_hash = r.content_hash)
                    """, logger: self.logger)
                try await connection.query("""
                    UPDATE receipts.expense e SET possible_duplicate_of = (
                        SELECT e2.id FROM receipts.receipt r, receipts.expense e2 JOIN receipts.receipt r2 ON r2.id = e2.receipt_id
                        WHERE r.id = e.receipt_id AND r2.owner = \(reassignTo) AND r2.external_user IS NOT DISTINCT FROM r.external_user
                            AND (r2.content_hash = r.content_hash
                                 OR (lower(trim(e2.description)) = lower(trim(e.description)) AND e2.date = e.date AND e2.amount = e.amount))
                        ORDER BY e2.last_modified, e2.seq LIMIT 1)
                    WHERE e.possible_duplicate_of IS NULL AND e.receipt_id IN (SELECT id FROM receipts.receipt WHERE owner = \(name))
                    """, logger: self.logger)
                try await connection.query("UPDATE receipts.receipt SET owner = \(reassignTo) WHERE owner = \(name)", logger: self.logger)
                // Their idempotency keys go with their receipts, unless the new owner has a key of that name.
                try await connection.query("""
                    UPDATE receipts.idempotency_key k SET owner = \(reassignTo) WHERE k.owner = \(name)
                        AND NOT EXISTS (SELECT 1 FROM receipts.idempotency_key o
                                        WHERE o.owner = \(reassignTo) AND o.external_user = k.external_user AND o.key = k.key)
                    """, logger: self.logger)
            }
            try await connection.query("DELETE FROM receipts.idempotency_key WHERE owner = \(name)", logger: self.logger)
            try await connection.query("""
                DELETE FROM receipts.webhook_event WHERE delivered_at IS NULL
                    AND subscription_id IN (SELECT id FROM receipts.webhook_subscription WHERE user_name = \(name))
                """, logger: self.logger)
            // Their webhooks, tokens and memberships go with them (ON DELETE CASCADE).
            try await connection.query("DELETE FROM receipts.account WHERE name = \(name)", logger: self.logger)
            return owned
        }
    }

    public func addGroup(name: String, members: [String: GroupRole], now: Date) async throws -> UserGroup {
        try Ownership.checkName(name, "group")
        let location = self.location
        return try await transaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO receipts.account_group (name, created_at) VALUES (\(name), \(now)) ON CONFLICT (name) DO NOTHING RETURNING 1
                """, logger: self.logger).collect()
            guard !inserted.isEmpty else {
                throw ReceiptError(.invalidState, "a group named '\(name)' exists already", file: location)
            }
            for (user, role) in members.sorted(by: { $0.key < $1.key }) {
                let added = try await connection.query("""
                    INSERT INTO receipts.group_member (group_name, user_name, role)
                    SELECT \(name), a.name, \(role.rawValue) FROM receipts.account a WHERE a.name = \(user)
                    RETURNING 1
                    """, logger: self.logger).collect()
                guard !added.isEmpty else {
                    throw ReceiptError(.notFound, "no user named '\(user)' to add to '\(name)' (add them first: `receipts user add \(user)`)",
                                       file: location)
                }
            }
            return UserGroup(name: name, createdAt: now, members: members)
        }
    }

    public func groups() async throws -> [UserGroup] {
        var groups: [UserGroup] = []
        for row in try await rows("""
            SELECT g.name, g.created_at, m.user_name, m.role
            FROM receipts.account_group g LEFT JOIN receipts.group_member m ON m.group_name = g.name
            ORDER BY g.name COLLATE "C"
            """) {
            let (name, created, user, role) = try row.decode((String, Date, String?, String?).self)
            if groups.last?.name != name { groups.append(UserGroup(name: name, createdAt: created, members: [:])) }
            if let user { groups[groups.count - 1].members[user] = role.flatMap(GroupRole.init(rawValue:)) ?? .viewer }
        }
        return groups
    }

    public func removeGroup(name: String) async throws -> Int {
        let location = self.location
        return try await transaction { connection in
            guard try await !connection.query("SELECT 1 FROM receipts.account_group WHERE name = \(name) FOR UPDATE",
                                              logger: self.logger).collect().isEmpty else {
                throw ReceiptError(.notFound, "no group named '\(name)' (see `receipts group list`)", file: location)
            }
            // Its receipts stay their owners', no longer shared; no one's uploads go to it any more
            // (`default_group`, ON DELETE SET NULL), and its memberships go (ON DELETE CASCADE).
            let held = try await connection.query("UPDATE receipts.receipt SET group_name = NULL WHERE group_name = \(name) RETURNING 1",
                                                  logger: self.logger).collect().count
            try await connection.query("DELETE FROM receipts.account_group WHERE name = \(name)", logger: self.logger)
            return held
        }
    }

    public func setMember(group: String, user: String, role: GroupRole?) async throws {
        let location = self.location
        try await transaction { connection in
            guard try await !connection.query("SELECT 1 FROM receipts.account_group WHERE name = \(group) FOR SHARE",
                                              logger: self.logger).collect().isEmpty else {
                throw ReceiptError(.notFound, "no group named '\(group)' (see `receipts group list`)", file: location)
            }
            guard try await !connection.query("SELECT 1 FROM receipts.account WHERE name = \(user) FOR SHARE",
                                              logger: self.logger).collect().isEmpty else {
                throw ReceiptError(.notFound, "no user named '\(user)' (see `receipts user list`)", file: location)
            }
            if let role {
                try await connection.query("""
                    INSERT INTO receipts.group_member (group_name, user_name, role) VALUES (\(group), \(user), \(role.rawValue))
                    ON CONFLICT (group_name, user_name) DO UPDATE SET role = excluded.role
                    """, logger: self.logger)
            } else {
                try await connection.query("DELETE FROM receipts.group_member WHERE group_name = \(group) AND user_name = \(user)",
                                           logger: self.logger)
                try await connection.query("UPDATE receipts.account SET default_group = NULL WHERE name = \(user) AND default_group = \(group)",
                                           logger: self.logger)
            }
        }
    }

    public func memberships(ofUser user: String) async throws -> [String: GroupRole] {
        var roles: [String: GroupRole] = [:]
        for row in try await rows("SELECT group_name, role FROM receipts.group_member WHERE user_name = \(user)") {
            let (group, role) = try row.decode((String, String).self)
            roles[group] = GroupRole(rawValue: role) ?? .viewer
        }
        return roles
    }
}
