import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// The mail store (SQLite's migration v8, PostgreSQL's v6) on both stores: what keeps a message
/// from being filed twice and from being lost.
@Suite struct MailStoreContractTests {
    private func message(_ sha: String = UUID().uuidString, mailbox: String = "imap://driver@127.0.0.1:143/INBOX",
                         validity: Int64? = 7, uid: Int64? = 1, messageId: String? = UUID().uuidString) -> MailMessage {
        MailMessage(mailbox: mailbox, uidValidity: validity, uid: uid, messageId: messageId, sha256: sha, from: "Pumpway <r@pumpway.example>",
                    subject: "Your receipt", date: "2025-06-03T08:41:12+01:00", emlPath: "/images/\(sha)")
    }

    @Test(arguments: StoreKind.available)
    func aMessageIsReceivedOnceAndResumedUntilFiled(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let first = message("aa11")
        guard case let .new(received) = try await store.receiveMessage(first) else { Issue.record("not new"); return }
        #expect(received.state == .received)
        // Received again before it was filed (the process died): resumed, not a second row.
        guard case let .resume(resumed) = try await store.receiveMessage(first) else { Issue.record("not resumed"); return }
        #expect(resumed.id == received.id)
        let receipt = UUID()
        try await store.fileMessage(id: received.id, receiptIds: [receipt], note: "left out: logo.png", now: Date())
        guard case let .duplicate(of: known) = try await store.receiveMessage(first) else { Issue.record("not a duplicate"); return }
        #expect(known.id == received.id && known.state == .filed && known.receiptIds == [receipt] && known.note == "left out: logo.png")
        #expect(try await store.mailMessages(limit: 10).count == 1)
        let stored = try #require(try await store.mailMessage(sha256: "aa11"))
        #expect(stored.subject == "Your receipt" && stored.from == "Pumpway <r@pumpway.example>" && stored.uid == 1 && stored.uidValidity == 7)
    }

    @Test(arguments: StoreKind.available)
    func theSameMessageIdIsADuplicateRecordedBesideTheFirst(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        guard case let .new(first) = try await store.receiveMessage(message("bb1", uid: 1, messageId: "m-1@x")) else { Issue.record("not new"); return }
        try await store.fileMessage(id: first.id, receiptIds: [UUID()], note: nil, now: Date())
        // Another delivery: other bytes (another Received header), another UID, the same Message-ID.
        guard case let .duplicate(of: original) = try await store.receiveMessage(message("bb2", uid: 2, messageId: "m-1@x")) else {
            Issue.record("not a duplicate"); return
        }
        #expect(original.id == first.id)
        let second = try #require(try await store.mailMessage(sha256: "bb2"))
        #expect(second.state == .duplicate && second.note?.contains(first.id.uuidString.lowercased()) == true)
        // The same mailbox, UIDVALIDITY and UID is the same message whatever its bytes.
        guard case .duplicate = try await store.receiveMessage(message("bb3", uid: 1, messageId: nil)) else { Issue.record("uid reused"); return }
    }

    @Test(arguments: StoreKind.available)
    func theWatermarkPassesFiledMessagesOfItsUIDValidityOnlyAndNeverGoesBack(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let mailbox = "imap://driver@127.0.0.1:143/INBOX"
        #expect(try await store.mailboxWatermark(mailbox) == nil)
        try await store.setMailboxWatermark(mailbox, uidValidity: 7, lastUID: 0, now: Date())
        guard case let .new(five) = try await store.receiveMessage(message(uid: 5)) else { Issue.record("not new"); return }
        // Received but not filed: the watermark does not pass it.
        #expect(try await store.mailboxWatermark(mailbox)?.lastUID == 0)
        try await store.fileMessage(id: five.id, receiptIds: [], note: nil, now: Date())
        #expect(try await store.mailboxWatermark(mailbox) == MailboxWatermark(mailbox: mailbox, uidValidity: 7, lastUID: 5))
        try await store.setMailboxWatermark(mailbox, uidValidity: 7, lastUID: 3, now: Date())
        #expect(try await store.mailboxWatermark(mailbox)?.lastUID == 5, "never back within one UIDVALIDITY")
        // A message of an older UIDVALIDITY does not move the new one's watermark.
        try await store.setMailboxWatermark(mailbox, uidValidity: 9, lastUID: 0, now: Date())
        guard case let .new(old) = try await store.receiveMessage(message(validity: 7, uid: 8)) else { Issue.record("not new"); return }
        try await store.fileMessage(id: old.id, receiptIds: [], note: nil, now: Date())
        #expect(try await store.mailboxWatermark(mailbox) == MailboxWatermark(mailbox: mailbox, uidValidity: 9, lastUID: 0))
    }

    @Test(arguments: StoreKind.available)
    func aDoneActionIsDueUntilMarkedDone(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let mailbox = "imap://driver@127.0.0.1:143/INBOX"
        guard case let .new(one) = try await store.receiveMessage(message(uid: 1)) else { Issue.record("not new"); return }
        guard case let .new(two) = try await store.receiveMessage(message(uid: 2)) else { Issue.record("not new"); return }
        #expect(try await store.pendingDoneActions(mailbox: mailbox, uidValidity: 7).isEmpty, "received, not filed: nothing is due")
        try await store.fileMessage(id: one.id, receiptIds: [], note: nil, now: Date())
        try await store.fileMessage(id: two.id, receiptIds: [], note: nil, now: Date())
        #expect(try await store.pendingDoneActions(mailbox: mailbox, uidValidity: 7).map(\.uid) == [1, 2])
        try await store.markMessageDone(id: one.id, now: Date())
        #expect(try await store.pendingDoneActions(mailbox: mailbox, uidValidity: 7).map(\.uid) == [2])
        #expect(try await store.pendingDoneActions(mailbox: mailbox, uidValidity: 8).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func aReceiptKeepsItsSource(kind: StoreKind) async throws {
        let store = try await TestStore.make(kind).store
        let source = ReceiptSource(from: "Pumpway <r@pumpway.example>", subject: "Your receipt", messageId: "m-9@x")
        let inserted = try await store.insert(Receipt(filePath: "\"Your receipt\" from r@pumpway.example", contentHash: "cc1", source: source),
                                              imagePath: nil, deduplicate: true).receipt
        let read = try #require(try await store.receipt(id: inserted.id, in: .everyone))
        #expect(read.source == source)
        #expect(ReceiptRecord(receipt: read, expense: nil).json["source"]?["subject"]?.stringValue == "Your receipt")
        let plain = try await store.insert(Receipt(filePath: "a.jpg", contentHash: "cc2"), imagePath: nil, deduplicate: true).receipt
        #expect(ReceiptRecord(receipt: plain, expense: nil).json["source"] == nil, "no source key for a file's receipt")
    }
}
