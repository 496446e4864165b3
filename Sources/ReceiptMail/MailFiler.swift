import Foundation
import Logging
import ReceiptKit

/// Files one raw message, store first: its bytes are kept (content-addressed, beside the images),
/// its row is written (`received`), its receipts are submitted to the pipeline's queue, then its
/// row becomes `filed` with what it became, in the same transaction as its mailbox's watermark.
/// A message known already (the same bytes, the same mailbox UID, the same Message-ID) is a
/// duplicate and files nothing. Bad content never throws: a message with nothing usable becomes a
/// failed receipt naming its subject and sender. What throws is the store (or the image folder)
/// failing: the message is then not filed, and is read again.
public struct MailFiler: Sendable {
    let pipeline: ReceiptPipeline
    let store: any MailStore
    let logger: Logger

    /// `store` is the pipeline's store, as the `MailStore` it is.
    public init(pipeline: ReceiptPipeline, store: any MailStore, logger: Logger) {
        self.pipeline = pipeline
        self.store = store
        self.logger = logger
    }

    /// Where a message came from.
    public struct Origin: Sendable {
        /// `MailMessage.mailbox`: an IMAP mailbox's name, or `inbound`.
        public var mailbox: String
        public var uidValidity: Int64?
        public var uid: Int64?

        public init(mailbox: String, uidValidity: Int64? = nil, uid: Int64? = nil) {
            self.mailbox = mailbox
            self.uidValidity = uidValidity
            self.uid = uid
        }

        public static let inbound = Origin(mailbox: "inbound")
    }

    /// What became of a message.
    public struct Outcome: Sendable {
        /// Its row (for a duplicate: the row of the message it repeats).
        public var message: MailMessage
        /// The receipts it became (a duplicate's: those of the message it repeats).
        public var receipts: [Receipt]
        public var isDuplicate: Bool
        /// `"Subject" from sender`.
        public var described: String { message.described }
    }

    /// Files `raw` as `ownership`'s (`--user`, the token's user): the message and its receipts are
    /// theirs, and it is a duplicate only of a message of theirs.
    public func file(_ raw: Data, origin: Origin, as ownership: Ownership) async throws -> Outcome {
        let parsed = Result { try MIMEMessage(raw) }
        let hash = Self.sha256(raw)
        let emlPath = try await pipeline.images.store(raw, hash: hash)
        let header = try? parsed.get()
        let row = MailMessage(mailbox: origin.mailbox, uidValidity: origin.uidValidity, uid: origin.uid,
                              messageId: header?.messageId, sha256: hash, from: header?.from, subject: header?.subject,
                              date: header?.date, emlPath: emlPath, owner: ownership.owner, externalUser: ownership.externalUser)
        let message: MailMessage
        switch try await store.receiveMessage(row) {
        case let .duplicate(of: known):
            logger.info("Message already filed", metadata: ["mail.mailbox": "\(origin.mailbox)", "mail.uid": "\(origin.uid.map(String.init) ?? "-")",
                                                            "mail.message": "\(row.described)", "mail.first": "\(known.mailbox)"])
            return Outcome(message: known, receipts: try await receipts(known.receiptIds, of: ownership), isDuplicate: true)
        case let .new(received), let .resume(received):
            message = received
        }
        var receipts: [Receipt] = []
        var note: String?
        switch parsed {
        case let .success(mime):
            let found = MessageReceipts(mime)
            for item in found.items {
                receipts.append(try await pipeline.submit(imageData: item.data, filename: item.name, as: ownership, source: mime.source))
            }
            if !found.skipped.isEmpty { note = "left out: " + found.skipped.joined(separator: "; ") }
        case let .failure(error):
            // Not a message GMime can read: kept as it came, and a failed receipt says so.
            let reason = (error as? ReceiptError)?.message ?? "\(error)"
            let name = origin.uid.map { "message UID \($0) of \(origin.mailbox)" } ?? "a message posted to \(origin.mailbox)"
            receipts.append(try await failedReceipt(named: name, error: "\(name): \(reason)", hash: hash, emlPath: emlPath, as: ownership))
        }
        try await store.fileMessage(id: message.id, receiptIds: receipts.map(\.id), note: note, now: Date())
        var filed = message
        filed.state = .filed
        filed.receiptIds = receipts.map(\.id)
        filed.note = note
        logger.info("Message filed", metadata: ["mail.mailbox": "\(origin.mailbox)", "mail.uid": "\(origin.uid.map(String.init) ?? "-")",
                                                "mail.message": "\(filed.described)", "mail.receipts": "\(receipts.count)"])
        return Outcome(message: filed, receipts: receipts, isDuplicate: false)
    }

    /// A message over the size limit: its header alone is kept (in place of the message), and a
    /// failed receipt names it and the cause.
    public func fileOversized(header raw: Data, size: Int, limit: Int, origin: Origin, as ownership: Ownership) async throws -> Outcome {
        let mime = try? MIMEMessage(raw)
        let hash = Self.sha256(raw)
        let emlPath = try await pipeline.images.store(raw, hash: hash)
        let row = MailMessage(mailbox: origin.mailbox, uidValidity: origin.uidValidity, uid: origin.uid, messageId: mime?.messageId,
                              sha256: hash, from: mime?.from, subject: mime?.subject, date: mime?.date, emlPath: emlPath,
                              owner: ownership.owner, externalUser: ownership.externalUser)
        let message: MailMessage
        switch try await store.receiveMessage(row) {
        case let .duplicate(of: known):
            return Outcome(message: known, receipts: try await receipts(known.receiptIds, of: ownership), isDuplicate: true)
        case let .new(received), let .resume(received):
            message = received
        }
        let name = row.described
        let megabytes = { (bytes: Int) in (Double(bytes) / 1_048_576).formatted(.number.precision(.fractionLength(0...1))) }
        let receipt = try await failedReceipt(
            named: name, error: "\(name): the message is \(megabytes(size)) MB, over the limit of \(megabytes(limit)) MB (--max-message-mb); only its header is kept",
            hash: hash, emlPath: emlPath, as: ownership, source: mime?.source)
        let note = "too large (\(size) bytes): only its header is kept"
        try await store.fileMessage(id: message.id, receiptIds: [receipt.id], note: note, now: Date())
        var filed = message
        filed.state = .filed
        filed.receiptIds = [receipt.id]
        filed.note = note
        return Outcome(message: filed, receipts: [receipt], isDuplicate: false)
    }

    /// A receipt that failed from the start (nothing to read), with the message's bytes as its own.
    private func failedReceipt(named name: String, error: String, hash: String, emlPath: String, as ownership: Ownership,
                               source: ReceiptSource? = nil) async throws -> Receipt {
        if let known = try await pipeline.store.receipt(contentHash: hash, in: Self.scope(ownership)) { return known }
        let now = Date()
        let receipt = Receipt(filePath: name, contentHash: hash, uploadTimestamp: now, ocrStatus: .failed, lastError: error,
                              createdAt: now, updatedAt: now, ownership: ownership, source: source)
        return try await pipeline.store.insert(receipt, imagePath: emlPath, deduplicate: true).receipt
    }

    /// What `ownership`'s receipts are: theirs, or their end user's.
    public static func scope(_ ownership: Ownership) -> Scope {
        ownership.externalUser.map { .externalUser($0, of: ownership.owner) } ?? .owner(ownership.owner)
    }

    private func receipts(_ ids: [UUID], of ownership: Ownership) async throws -> [Receipt] {
        var found: [Receipt] = []
        for id in ids {
            if let receipt = try await pipeline.store.receipt(id: id, in: Self.scope(ownership)) { found.append(receipt) }
        }
        return found
    }

    static func sha256(_ data: Data) -> String { ContentHash.hex(of: data) }
}
