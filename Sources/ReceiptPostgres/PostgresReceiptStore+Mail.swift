import Foundation
import PostgresNIO
import ReceiptModel
import ReceiptStorage

/// E-mail messages and IMAP watermarks in PostgreSQL (migration `v6`; see `MailStore`). Several
/// hosts may poll one mailbox: a message's row is claimed by its unique SHA-256 (`ON CONFLICT DO
/// NOTHING`), so one of them files it.
extension PostgresReceiptStore: MailStore {
    private static let mailColumns = """
        id, mailbox, uid_validity, uid, message_id, sha256, sender, subject, sent_date, eml_path, state, receipt_ids, note,
        received_at, filed_at, done_at, owner, external_user
        """

    public func receiveMessage(_ message: MailMessage) async throws -> MailIntake {
        try await transaction { connection in
            // Serializes the receipt of messages in this database: the checks below and the insert
            // are then one step for every host.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.mailLock))", logger: self.logger)
            func first(_ query: PostgresQuery) async throws -> MailMessage? {
                try await connection.query(query, logger: self.logger).collect().first.map(Self.mailMessage)
            }
            let (owner, external) = (message.owner, message.externalUser ?? "")
            if let known = try await first("""
                SELECT \(unescaped: Self.mailColumns) FROM receipts.mail_message
                WHERE owner = \(owner) AND external_user = \(external) AND sha256 = \(message.sha256)
                """) {
                return known.state == .received ? .resume(known) : .duplicate(of: known)
            }
            if let uid = message.uid, let validity = message.uidValidity, let known = try await first("""
                SELECT \(unescaped: Self.mailColumns) FROM receipts.mail_message
                WHERE mailbox = \(message.mailbox) AND uid_validity = \(validity) AND uid = \(uid)
                """) {
                return known.state == .received ? .resume(known) : .duplicate(of: known)
            }
            if let messageId = message.messageId, !messageId.isEmpty, let original = try await first("""
                SELECT \(unescaped: Self.mailColumns) FROM receipts.mail_message
                WHERE owner = \(owner) AND external_user = \(external) AND message_id = \(messageId) AND state <> 'duplicate'
                ORDER BY received_at, seq LIMIT 1
                """) {
                var duplicate = message
                duplicate.state = .duplicate
                duplicate.note = "the same Message-ID as message \(original.id.uuidString.lowercased()) (\(original.mailbox))"
                duplicate.receiptIds = original.receiptIds
                try await connection.query(Self.insert(duplicate), logger: self.logger)
                return .duplicate(of: original)
            }
            var received = message
            received.state = .received
            try await connection.query(Self.insert(received), logger: self.logger)
            return .new(received)
        }
    }

    public func fileMessage(id: UUID, receiptIds: [UUID], note: String?, now: Date) async throws {
        try await transaction { connection in
            let rows = try await connection.query("""
                UPDATE receipts.mail_message SET state = 'filed', receipt_ids = \(MailMessage.idList(receiptIds)), note = \(note),
                    filed_at = \(now)
                WHERE id = \(id) RETURNING mailbox, uid_validity, uid
                """, logger: self.logger).collect()
            guard let row = rows.first else { return }
            let (mailbox, validity, uid) = try row.decode((String, Int64?, Int64?).self)
            guard let validity, let uid else { return }
            try await connection.query("""
                UPDATE receipts.mail_mailbox SET last_uid = greatest(last_uid, \(uid)), updated_at = \(now)
                WHERE mailbox = \(mailbox) AND uid_validity = \(validity)
                """, logger: self.logger)
        }
    }

    public func mailboxWatermark(_ mailbox: String) async throws -> MailboxWatermark? {
        try await rows("SELECT uid_validity, last_uid FROM receipts.mail_mailbox WHERE mailbox = \(mailbox)").first.map { row in
            let (validity, last) = try row.decode((Int64, Int64).self)
            return MailboxWatermark(mailbox: mailbox, uidValidity: validity, lastUID: last)
        }
    }

    public func setMailboxWatermark(_ mailbox: String, uidValidity: Int64, lastUID: Int64, now: Date) async throws {
        try await execute("""
            INSERT INTO receipts.mail_mailbox AS m (mailbox, uid_validity, last_uid, updated_at) VALUES (\(mailbox), \(uidValidity), \(lastUID), \(now))
            ON CONFLICT (mailbox) DO UPDATE SET
                last_uid = CASE WHEN m.uid_validity = excluded.uid_validity THEN greatest(m.last_uid, excluded.last_uid) ELSE excluded.last_uid END,
                uid_validity = excluded.uid_validity, updated_at = excluded.updated_at
            """)
    }

    public func pendingDoneActions(mailbox: String, uidValidity: Int64) async throws -> [MailMessage] {
        try await rows("""
            SELECT \(unescaped: Self.mailColumns) FROM receipts.mail_message
            WHERE mailbox = \(mailbox) AND uid_validity = \(uidValidity) AND state = 'filed' AND done_at IS NULL ORDER BY uid
            """).map(Self.mailMessage)
    }

    public func markMessageDone(id: UUID, now: Date) async throws {
        try await execute("UPDATE receipts.mail_message SET done_at = \(now) WHERE id = \(id)")
    }

    public func mailMessages(limit: Int) async throws -> [MailMessage] {
        try await rows("SELECT \(unescaped: Self.mailColumns) FROM receipts.mail_message ORDER BY received_at DESC, seq DESC LIMIT \(limit)")
            .map(Self.mailMessage)
    }

    public func mailMessage(sha256: String) async throws -> MailMessage? {
        try await rows("SELECT \(unescaped: Self.mailColumns) FROM receipts.mail_message WHERE sha256 = \(sha256)").first.map(Self.mailMessage)
    }

    /// Key of the advisory lock held while a message is received ("rcptmail" in ASCII).
    private static let mailLock: Int64 = 0x7263_7074_6D61_696C

    private static func insert(_ m: MailMessage) -> PostgresQuery {
        """
        INSERT INTO receipts.mail_message (id, mailbox, uid_validity, uid, message_id, sha256, sender, subject, sent_date, eml_path,
            state, receipt_ids, note, received_at, filed_at, done_at, owner, external_user)
        VALUES (\(m.id), \(m.mailbox), \(m.uidValidity), \(m.uid), \(m.messageId), \(m.sha256), \(m.from), \(m.subject), \(m.date),
            \(m.emlPath), \(m.state.rawValue), \(MailMessage.idList(m.receiptIds)), \(m.note), \(m.receivedAt), \(m.filedAt), \(m.doneAt),
            \(m.owner), \(m.externalUser ?? ""))
        """
    }

    private static func mailMessage(_ row: PostgresRow) throws -> MailMessage {
        let r = row.makeRandomAccess()
        return MailMessage(
            id: try r["id"].decode(UUID.self), mailbox: try r["mailbox"].decode(String.self),
            uidValidity: try r["uid_validity"].decode(Int64?.self), uid: try r["uid"].decode(Int64?.self),
            messageId: try r["message_id"].decode(String?.self), sha256: try r["sha256"].decode(String.self),
            from: try r["sender"].decode(String?.self), subject: try r["subject"].decode(String?.self),
            date: try r["sent_date"].decode(String?.self), emlPath: try r["eml_path"].decode(String.self),
            state: MailMessageState(rawValue: try r["state"].decode(String.self)) ?? .received,
            receiptIds: MailMessage.ids(try r["receipt_ids"].decode(String.self)), note: try r["note"].decode(String?.self),
            receivedAt: try r["received_at"].decode(Date.self), filedAt: try r["filed_at"].decode(Date?.self),
            doneAt: try r["done_at"].decode(Date?.self), owner: try r["owner"].decode(String.self),
            externalUser: Optional(try r["external_user"].decode(String.self)).flatMap { $0.isEmpty ? nil : $0 })
    }
}
