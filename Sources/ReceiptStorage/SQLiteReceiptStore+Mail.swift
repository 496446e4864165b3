import Foundation
import GRDB
import ReceiptModel

/// E-mail messages and IMAP watermarks in SQLite (migration `v8`; see `MailStore`).
extension SQLiteReceiptStore: MailStore {
    public func receiveMessage(_ message: MailMessage) async throws -> MailIntake {
        try await write { db in
            let (owner, external) = (message.owner, message.externalUser ?? "")
            if let known = try Row.fetchOne(db, sql: "SELECT * FROM mail_message WHERE owner = ? AND externalUser = ? AND sha256 = ?",
                                            arguments: [owner, external, message.sha256]).map(Self.mailMessage) {
                return known.state == .received ? .resume(known) : .duplicate(of: known)
            }
            if let uid = message.uid, let validity = message.uidValidity,
               let known = try Row.fetchOne(db, sql: "SELECT * FROM mail_message WHERE mailbox = ? AND uidValidity = ? AND uid = ?",
                                            arguments: [message.mailbox, validity, uid]).map(Self.mailMessage) {
                return known.state == .received ? .resume(known) : .duplicate(of: known)
            }
            if let messageId = message.messageId, !messageId.isEmpty,
               let first = try Row.fetchOne(db, sql: """
                   SELECT * FROM mail_message WHERE owner = ? AND externalUser = ? AND messageId = ? AND state != 'duplicate'
                   ORDER BY receivedAt LIMIT 1
                   """, arguments: [owner, external, messageId]).map(Self.mailMessage) {
                var duplicate = message
                duplicate.state = .duplicate
                duplicate.note = "the same Message-ID as message \(StoreRows.text(first.id)) (\(first.mailbox))"
                duplicate.receiptIds = first.receiptIds
                try Self.insert(duplicate, db)
                return .duplicate(of: first)
            }
            var received = message
            received.state = .received
            try Self.insert(received, db)
            return .new(received)
        }
    }

    public func fileMessage(id: UUID, receiptIds: [UUID], note: String?, now: Date) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE mail_message SET state = 'filed', receiptIds = ?, note = ?, filedAt = ? WHERE id = ?
                """, arguments: [MailMessage.idList(receiptIds), note, now, StoreRows.text(id)])
            guard let row = try Row.fetchOne(db, sql: "SELECT mailbox, uidValidity, uid FROM mail_message WHERE id = ?",
                                             arguments: [StoreRows.text(id)]),
                  let uid = row["uid"] as Int64?, let validity = row["uidValidity"] as Int64? else { return }
            try db.execute(sql: """
                UPDATE mail_mailbox SET lastUid = max(lastUid, ?), updatedAt = ? WHERE mailbox = ? AND uidValidity = ?
                """, arguments: [uid, now, row["mailbox"] as String, validity])
        }
    }

    public func mailboxWatermark(_ mailbox: String) async throws -> MailboxWatermark? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM mail_mailbox WHERE mailbox = ?", arguments: [mailbox]).map { row in
                MailboxWatermark(mailbox: row["mailbox"], uidValidity: row["uidValidity"], lastUID: row["lastUid"])
            }
        }
    }

    public func setMailboxWatermark(_ mailbox: String, uidValidity: Int64, lastUID: Int64, now: Date) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO mail_mailbox (mailbox, uidValidity, lastUid, updatedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (mailbox) DO UPDATE SET
                    lastUid = CASE WHEN uidValidity = excluded.uidValidity THEN max(lastUid, excluded.lastUid) ELSE excluded.lastUid END,
                    uidValidity = excluded.uidValidity, updatedAt = excluded.updatedAt
                """, arguments: [mailbox, uidValidity, lastUID, now])
        }
    }

    public func pendingDoneActions(mailbox: String, uidValidity: Int64) async throws -> [MailMessage] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM mail_message WHERE mailbox = ? AND uidValidity = ? AND state = 'filed' AND doneAt IS NULL ORDER BY uid
                """, arguments: [mailbox, uidValidity]).map(Self.mailMessage)
        }
    }

    public func markMessageDone(id: UUID, now: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE mail_message SET doneAt = ? WHERE id = ?", arguments: [now, StoreRows.text(id)])
        }
    }

    public func mailMessages(limit: Int) async throws -> [MailMessage] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM mail_message ORDER BY receivedAt DESC, rowid DESC LIMIT ?", arguments: [limit])
                .map(Self.mailMessage)
        }
    }

    public func mailMessage(sha256: String) async throws -> MailMessage? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM mail_message WHERE sha256 = ?", arguments: [sha256]).map(Self.mailMessage)
        }
    }

    private static func insert(_ m: MailMessage, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO mail_message (id, mailbox, uidValidity, uid, messageId, sha256, sender, subject, sentDate, emlPath,
                state, receiptIds, note, receivedAt, filedAt, doneAt, owner, externalUser)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [StoreRows.text(m.id), m.mailbox, m.uidValidity, m.uid, m.messageId, m.sha256, m.from, m.subject,
                             m.date, m.emlPath, m.state.rawValue, MailMessage.idList(m.receiptIds), m.note, m.receivedAt,
                             m.filedAt, m.doneAt, m.owner, m.externalUser ?? ""])
    }

    private static func mailMessage(_ row: Row) -> MailMessage {
        MailMessage(id: StoreRows.uuid(row, "id") ?? UUID(), mailbox: row["mailbox"], uidValidity: row["uidValidity"],
                    uid: row["uid"], messageId: row["messageId"], sha256: row["sha256"], from: row["sender"],
                    subject: row["subject"], date: row["sentDate"], emlPath: row["emlPath"],
                    state: MailMessageState(rawValue: row["state"]) ?? .received, receiptIds: MailMessage.ids(row["receiptIds"]),
                    note: row["note"], receivedAt: row["receivedAt"], filedAt: row["filedAt"], doneAt: row["doneAt"],
                    owner: row["owner"], externalUser: (row["externalUser"] as String?).flatMap { $0.isEmpty ? nil : $0 })
    }
}
