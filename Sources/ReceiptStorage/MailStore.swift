import Foundation
import ReceiptModel

/// What a store keeps of e-mail (`receipts mail`, `POST /v1/inbound-email`): a row per message
/// received, and per IMAP mailbox the UID watermark. Both stores implement it (SQLite's migration
/// `v8`, PostgreSQL's `v6`).
///
/// A message is stored before anything is made of it (its raw bytes in the image repository, under
/// their SHA-256, then its row, state `received`); its receipts are submitted; then, in one
/// transaction, its row becomes `filed` with the receipts it became and the mailbox's watermark
/// passes its UID. After that the done-action (a keyword, a move) is applied and recorded. A crash
/// anywhere leaves either a `received` row (the message is read again and resumed: its receipts
/// are found by their content, not made twice) or a `filed` one whose done-action is still due.
public protocol MailStore: Sendable {
    /// Records a message about to be filed, unless it is known. One transaction:
    /// - a row with the same SHA-256 that is `received` (a crash mid-filing) is `.resume`d, one that
    ///   is `filed` makes this a `.duplicate` (nothing written);
    /// - so does a row of the same mailbox, UIDVALIDITY and UID;
    /// - a row with the same Message-ID makes this a `.duplicate` too, recorded as a row of state
    ///   `duplicate` naming the first (its bytes differ: another delivery of the same message);
    /// - otherwise the row is inserted as `received` (`.new`).
    func receiveMessage(_ message: MailMessage) async throws -> MailIntake
    /// The message's receipts are submitted: `filed`, with `receiptIds` and `note`; and when it came
    /// from an IMAP mailbox whose watermark has its UIDVALIDITY, the watermark passes its UID. One
    /// transaction.
    func fileMessage(id: UUID, receiptIds: [UUID], note: String?, now: Date) async throws
    /// The watermark of `mailbox`, nil before its first scan.
    func mailboxWatermark(_ mailbox: String) async throws -> MailboxWatermark?
    /// Sets the mailbox's watermark: at its first scan, after a UIDVALIDITY change (UID 0: the
    /// folder is read again), and past messages that were skipped or already known. Never moves a
    /// watermark of the same UIDVALIDITY back.
    func setMailboxWatermark(_ mailbox: String, uidValidity: Int64, lastUID: Int64, now: Date) async throws
    /// Filed messages of this mailbox and UIDVALIDITY whose done-action has not been applied yet.
    func pendingDoneActions(mailbox: String, uidValidity: Int64) async throws -> [MailMessage]
    /// The done-action of the message was applied (or is not needed).
    func markMessageDone(id: UUID, now: Date) async throws
    /// Messages, newest first.
    func mailMessages(limit: Int) async throws -> [MailMessage]
    func mailMessage(sha256: String) async throws -> MailMessage?
}

/// One e-mail message as the store keeps it.
public struct MailMessage: Sendable, Equatable {
    public var id: UUID
    /// Where it came from: an IMAP mailbox as `imaps://user@host:993/INBOX` (never a password), or
    /// `inbound` for `POST /v1/inbound-email`.
    public var mailbox: String
    public var uidValidity: Int64?
    public var uid: Int64?
    /// Message-ID without angle brackets.
    public var messageId: String?
    /// SHA-256 of the raw message (lowercase hex): the name of its `.eml` copy.
    public var sha256: String
    /// Whose it is (the receipts it becomes are theirs): the same message sent by two users is two
    /// messages, each deduplicated within its owner (and end user) alone.
    public var owner: String
    public var externalUser: String?
    public var from: String?
    public var subject: String?
    /// The Date header, ISO 8601, when the message has a readable one.
    public var date: String?
    /// Where the raw message is kept (what the image repository returned).
    public var emlPath: String
    public var state: MailMessageState
    /// What it became: the receipts found in it (a failed one when it held nothing usable).
    public var receiptIds: [UUID]
    /// Why it is a duplicate, or what was left out of it (small inline images).
    public var note: String?
    public var receivedAt: Date
    public var filedAt: Date?
    /// When its done-action was applied.
    public var doneAt: Date?

    public init(id: UUID = UUID(), mailbox: String, uidValidity: Int64? = nil, uid: Int64? = nil, messageId: String?,
                sha256: String, from: String?, subject: String?, date: String?, emlPath: String,
                state: MailMessageState = .received, receiptIds: [UUID] = [], note: String? = nil,
                receivedAt: Date = Date(), filedAt: Date? = nil, doneAt: Date? = nil,
                owner: String = Ownership.defaultAdmin, externalUser: String? = nil) {
        self.owner = owner
        self.externalUser = externalUser
        self.id = id
        self.mailbox = mailbox
        self.uidValidity = uidValidity
        self.uid = uid
        self.messageId = messageId
        self.sha256 = sha256
        self.from = from
        self.subject = subject
        self.date = date
        self.emlPath = emlPath
        self.state = state
        self.receiptIds = receiptIds
        self.note = note
        self.receivedAt = receivedAt
        self.filedAt = filedAt
        self.doneAt = doneAt
    }

    /// `"Subject" from sender`, for one-line messages.
    public var described: String {
        "\"\(subject ?? "(no subject)")\" from \(from ?? "(unknown sender)")"
    }

    package static func idList(_ ids: [UUID]) -> String {
        ids.map { $0.uuidString.lowercased() }.joined(separator: ",")
    }

    package static func ids(_ text: String?) -> [UUID] {
        (text ?? "").split(separator: ",").compactMap { UUID(uuidString: String($0)) }
    }
}

public enum MailMessageState: String, Sendable, CaseIterable {
    /// Stored; its receipts are being submitted (or were, when the process died).
    case received
    /// Its receipts are submitted.
    case filed
    /// Another delivery of a message already received (the same Message-ID).
    case duplicate
}

/// What `MailStore.receiveMessage` found.
public enum MailIntake: Sendable, Equatable {
    /// A message not seen before, now `received`: file it.
    case new(MailMessage)
    /// A message that was `received` but not filed (the process died): file it again.
    case resume(MailMessage)
    /// A message filed already (this row): nothing to do.
    case duplicate(of: MailMessage)
}

/// How far an IMAP mailbox has been read: every UID up to `lastUID` of this UIDVALIDITY is filed
/// (or was skipped on purpose).
public struct MailboxWatermark: Sendable, Equatable {
    public var mailbox: String
    public var uidValidity: Int64
    public var lastUID: Int64

    public init(mailbox: String, uidValidity: Int64, lastUID: Int64) {
        self.mailbox = mailbox
        self.uidValidity = uidValidity
        self.lastUID = lastUID
    }
}
