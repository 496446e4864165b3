import Foundation
import GRDB
import ReceiptModel
import ReceiptStorage

/// Users and groups in SQLite (`account`, `account_group`, `group_member`: schema v7).
extension SQLiteReceiptStore {
    public func addUser(name: String, isAdmin: Bool, defaultGroup: String?, now: Date) async throws -> User {
        try Ownership.checkName(name, "user")
        let location = self.location
        return try await write { db in
            guard try !Self.exists("account", name, db) else {
                throw ReceiptError(.invalidState, "a user named '\(name)' exists already", file: location)
            }
            try db.execute(sql: "INSERT INTO account (name, isAdmin, defaultGroup, createdAt) VALUES (?, ?, ?, ?)",
                           arguments: [name, isAdmin, defaultGroup, now])
            if let defaultGroup {
                guard try Self.exists("account_group", defaultGroup, db) else {
                    throw ReceiptError(.notFound, "no group named '\(defaultGroup)' (add it first: `receipts group add \(defaultGroup)`)",
                                       file: location)
                }
                try db.execute(sql: """
                    INSERT INTO group_member (groupName, userName, role) VALUES (?, ?, 'editor') ON CONFLICT DO NOTHING
                    """, arguments: [defaultGroup, name])
            }
            return User(name: name, isAdmin: isAdmin, defaultGroup: defaultGroup, createdAt: now)
        }
    }

    public func users() async throws -> [User] {
        try await read { db in try Row.fetchAll(db, sql: "SELECT * FROM account ORDER BY name").map(Self.user) }
    }

    public func user(named name: String) async throws -> User? {
        try await read { db in try Row.fetchOne(db, sql: "SELECT * FROM account WHERE name = ?", arguments: [name]).map(Self.user) }
    }

    private static func user(_ row: Row) -> User {
        User(name: row["name"], isAdmin: row["isAdmin"], defaultGroup: row["defaultGroup"], createdAt: row["createdAt"])
    }

    public func removeUser(name: String, reassignTo: String?) async throws -> Int {
        let location = self.location
        return try await write { db in
            guard let user = try Row.fetchOne(db, sql: "SELECT * FROM account WHERE name = ?", arguments: [name]).map(Self.user) else {
                throw ReceiptError(.notFound, "no user named '\(name)' (see `receipts user list`)", file: location)
            }
            if user.isAdmin, try Int.fetchOne(db, sql: "SELECT count(*) FROM account WHERE isAdmin") == 1 {
                throw ReceiptError(.invalidState, "'\(name)' is the last administrator; add another (`receipts user add NAME --admin`) first",
                                   file: location)
            }
            let owned = try Int.fetchOne(db, sql: "SELECT count(*) FROM receipt WHERE owner = ?", arguments: [name]) ?? 0
            if owned > 0 {
                guard let reassignTo else {
                    throw ReceiptError(.invalidState, "'\(name)' owns \(owned) receipt\(owned == 1 ? "" : "s"); "
                                       + "give them to another user with --reassign-to NAME, or delete them first", file: location)
                }
                guard reassignTo != name, try Self.exists("account", reassignTo, db) else {
                    throw ReceiptError(.notFound, "no other user named '\(reassignTo)' to give the receipts to", file: location)
                }
                // A purchase both had (the same bytes, or the same vendor, date and total) is one
                // expense twice now: the moved one names the new owner's as its possible duplicate.
                try db.execute(sql: Self.reassignedDuplicates, arguments: [reassignTo, name])
                try db.execute(sql: "UPDATE receipt SET owner = ? WHERE owner = ?", arguments: [reassignTo, name])
                try db.execute(sql: """
                    UPDATE idempotency_key SET owner = ? WHERE owner = ?
                        AND NOT EXISTS (SELECT 1 FROM idempotency_key k WHERE k.owner = ? AND k.externalUser = idempotency_key.externalUser
                                        AND k.key = idempotency_key.key)
                    """, arguments: [reassignTo, name, reassignTo])
            }
            try db.execute(sql: "DELETE FROM idempotency_key WHERE owner = ?", arguments: [name])
            try db.execute(sql: """
                DELETE FROM webhook_event WHERE deliveredAt IS NULL
                    AND subscriptionId IN (SELECT id FROM webhook_subscription WHERE userName = ?)
                """, arguments: [name])
            try db.execute(sql: "DELETE FROM webhook_subscription WHERE userName = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM api_token WHERE userName = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM account WHERE name = ?", arguments: [name])
            return owned
        }
    }

    /// Marks each expense of the user leaving (the second argument) that the user receiving their
    /// receipts (the first) has already — a receipt of the same bytes, or an expense of the same
    /// vendor, date and total, of the same end user — as a possible duplicate of the receiver's
    /// earliest such expense, as a completion marks one.
    static let reassignedDuplicates = """
        UPDATE expense SET possibleDuplicateOf = (
            SELECT e2.id FROM receipt r, expense e2 JOIN receipt r2 ON r2.id = e2.receiptId
            WHERE r.id = expense.receiptId AND r2.owner = ?1 AND r2.externalUser IS r.externalUser
                AND (r2.contentHash = r.contentHash
                     OR (trim(e2.description) = trim(expense.description) COLLATE NOCASE AND e2.date = expense.date
                         AND e2.amount = expense.amount))
            ORDER BY e2.lastModified, e2.rowid LIMIT 1)
        WHERE possibleDuplicateOf IS NULL AND receiptId IN (SELECT id FROM receipt WHERE owner = ?2)
        """

    public func addGroup(name: String, members: [String: GroupRole], now: Date) async throws -> UserGroup {
        try Ownership.checkName(name, "group")
        let location = self.location
        return try await write { db in
            guard try !Self.exists("account_group", name, db) else {
                throw ReceiptError(.invalidState, "a group named '\(name)' exists already", file: location)
            }
            try db.execute(sql: "INSERT INTO account_group (name, createdAt) VALUES (?, ?)", arguments: [name, now])
            for (user, role) in members.sorted(by: { $0.key < $1.key }) {
                guard try Self.exists("account", user, db) else {
                    throw ReceiptError(.notFound, "no user named '\(user)' to add to '\(name)' (add them first: `receipts user add \(user)`)",
                                       file: location)
                }
                try db.execute(sql: "INSERT INTO group_member (groupName, userName, role) VALUES (?, ?, ?)",
                               arguments: [name, user, role.rawValue])
            }
            return UserGroup(name: name, createdAt: now, members: members)
        }
    }

    public func groups() async throws -> [UserGroup] {
        try await read { db in
            let members = try Row.fetchAll(db, sql: "SELECT * FROM group_member")
            return try Row.fetchAll(db, sql: "SELECT * FROM account_group ORDER BY name").map { row in
                let name: String = row["name"]
                var roles: [String: GroupRole] = [:]
                for member in members where (member["groupName"] as String) == name {
                    roles[member["userName"]] = GroupRole(rawValue: member["role"]) ?? .viewer
                }
                return UserGroup(name: name, createdAt: row["createdAt"], members: roles)
            }
        }
    }

    public func removeGroup(name: String) async throws -> Int {
        let location = self.location
        return try await write { db in
            guard try Self.exists("account_group", name, db) else {
                throw ReceiptError(.notFound, "no group named '\(name)' (see `receipts group list`)", file: location)
            }
            try db.execute(sql: "UPDATE receipt SET groupName = NULL WHERE groupName = ?", arguments: [name])
            let held = db.changesCount
            try db.execute(sql: "UPDATE account SET defaultGroup = NULL WHERE defaultGroup = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM account_group WHERE name = ?", arguments: [name])
            return held
        }
    }

    public func setMember(group: String, user: String, role: GroupRole?) async throws {
        let location = self.location
        try await write { db in
            guard try Self.exists("account_group", group, db) else {
                throw ReceiptError(.notFound, "no group named '\(group)' (see `receipts group list`)", file: location)
            }
            guard try Self.exists("account", user, db) else {
                throw ReceiptError(.notFound, "no user named '\(user)' (see `receipts user list`)", file: location)
            }
            if let role {
                try db.execute(sql: """
                    INSERT INTO group_member (groupName, userName, role) VALUES (?, ?, ?)
                    ON CONFLICT(groupName, userName) DO UPDATE SET role = excluded.role
                    """, arguments: [group, user, role.rawValue])
            } else {
                try db.execute(sql: "DELETE FROM group_member WHERE groupName = ? AND userName = ?", arguments: [group, user])
                try db.execute(sql: "UPDATE account SET defaultGroup = NULL WHERE name = ? AND defaultGroup = ?", arguments: [user, group])
            }
        }
    }

    public func memberships(ofUser user: String) async throws -> [String: GroupRole] {
        try await read { db in
            var roles: [String: GroupRole] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT groupName, role FROM group_member WHERE userName = ?", arguments: [user]) {
                roles[row["groupName"]] = GroupRole(rawValue: row["role"]) ?? .viewer
            }
            return roles
        }
    }

    private static func exists(_ table: String, _ name: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE name = ?)", arguments: [name]) ?? false
    }
}
