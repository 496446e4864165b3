import Foundation
import Logging
import Testing
@testable import ReceiptKit
@testable import ReceiptMail
@testable import TestHelpers
@testable import TestSupport

/// The poller against a real Dovecot the tests start (IMAP and IMAPS), filing into a real SQLite
/// store. Receipts are submitted, not read: what is read from them is the CLI tests' concern.
@Suite(.enabled(if: DovecotTestServer.available, "Dovecot (dovecot-imapd) is not installed"), .serialized)
struct MailboxPollerTests {
    static let names = ["fuel-app-html", "parking-app-jsonld", "ride-nested-table", "insurer-pdf", "forwarded-phone-photo",
                        "heic-attachment", "logo-only"]

    /// A Dovecot, a store and a pipeline of the test's own.
    struct Harness {
        let dovecot: DovecotTestServer
        let dir: TemporaryDirectory
        let store: SQLiteReceiptStore
        let pipeline: ReceiptPipeline

        init() async throws {
            dovecot = try await DovecotTestServer.started()
            dir = try TemporaryDirectory()
            store = try SQLiteReceiptStore(path: dir.storePath)
            pipeline = ReceiptPipeline(store: store, images: ImageStore(besideDatabase: store.location), processor: ScriptedProcessor(),
                                       logger: TestSupport.logger)
        }

        func poller(_ folder: String = "INBOX", tls: Bool = false, password: String = DovecotTestServer.password,
                    _ configure: (inout MailboxConfiguration) -> Void = { _ in }) throws -> MailboxPoller {
            var configuration = MailboxConfiguration(account: try IMAPAccount(url: dovecot.url(folder, tls: tls), password: password))
            configure(&configuration)
            return MailboxPoller(configuration: configuration, filer: MailFiler(pipeline: pipeline, store: store, logger: TestSupport.logger),
                                 store: store, logger: TestSupport.logger)
        }

        func append(_ names: [String], to folder: String = "INBOX") async throws {
            try await dovecot.append(try names.map(MessageReadingTests.eml), to: folder)
        }
    }

    @Test func everyTestMessageIsFiledOnceWithItsSourceAndMarkedDone() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        try await h.append(Self.names)
        let unreadBefore = try await h.dovecot.unseen()
        let report = try await h.poller().poll()
        #expect(report.outcomes.count == 7 && report.outcomes.allSatisfy { !$0.isDuplicate && $0.receipts.count == 1 })
        let subjects = try Self.names.map(Self.subject)
        #expect(report.outcomes.map { $0.message.subject ?? "" } == subjects)
        for outcome in report.outcomes {
            #expect(outcome.receipts[0].source?.subject == outcome.message.subject)
            #expect(outcome.receipts[0].source?.messageId == outcome.message.messageId)
        }
        #expect(try await h.dovecot.uids(keyword: "$ReceiptImported") == [1, 2, 3, 4, 5, 6, 7])
        #expect(try await h.dovecot.unseen() == unreadBefore, "what was unread stays unread")
        #expect(try await h.store.mailboxWatermark(h.dovecot.url())?.lastUID == 7)
        #expect(try await h.store.pendingDoneActions(mailbox: h.dovecot.url(), uidValidity: h.dovecot.uidValidity()).isEmpty)
        // The next poll finds nothing new: nothing is read twice.
        let again = try await h.poller().poll()
        #expect(again.outcomes.isEmpty)
        #expect(try await h.store.receipts(ReceiptQuery(), in: .everyone).count == 7)
    }

    @Test func theSameMessageDeliveredTwiceIsOne() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        let raw = try MessageReadingTests.eml("fuel-app-html")
        // The same bytes twice, then another delivery of it (one more Received header: other bytes).
        try await h.dovecot.append([raw, raw, Data("Received: from relay.example by mx.example; Tue, 3 Jun 2025 08:41:13 +0100\r\n".utf8) + raw])
        let report = try await h.poller().poll()
        #expect(report.outcomes.map(\.isDuplicate) == [false, true, true])
        #expect(Set(report.outcomes.flatMap(\.receipts).map(\.id)).count == 1)
        #expect(try await h.store.receipts(ReceiptQuery(), in: .everyone).count == 1)
        #expect(try await h.store.mailMessages(limit: 10).map(\.state).sorted { $0.rawValue < $1.rawValue } == [.duplicate, .filed])
        #expect(try await h.dovecot.uids(keyword: "$ReceiptImported") == [1, 2, 3], "duplicates are done with too")
    }

    @Test func aRecreatedFolderIsReadAgainAndFilesNothingTwice() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        try await h.dovecot.create("Receipts")
        try await h.append(["fuel-app-html", "insurer-pdf"], to: "Receipts")
        let first = try await h.poller("Receipts").poll()
        #expect(first.outcomes.count == 2)
        let before = try #require(try await h.store.mailboxWatermark(h.dovecot.url("Receipts")))
        // The folder recreated (a new UIDVALIDITY) with the same messages and one more.
        try await h.dovecot.delete("Receipts")
        try await h.dovecot.create("Receipts")
        try await h.append(["fuel-app-html", "insurer-pdf", "ride-nested-table"], to: "Receipts")
        let second = try await h.poller("Receipts").poll()
        #expect(second.outcomes.map(\.isDuplicate) == [true, true, false])
        let after = try #require(try await h.store.mailboxWatermark(h.dovecot.url("Receipts")))
        #expect(after.uidValidity != before.uidValidity && after.lastUID == 3)
        #expect(try await h.store.receipts(ReceiptQuery(), in: .everyone).count == 3)
    }

    @Test func aMissingDoneFolderIsOneLineAndNothingIsRead() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        try await h.append(["fuel-app-html"])
        let poller = try h.poller { $0.doneAction = .move("Filed") }
        let error = await #expect(throws: ReceiptError.self) { try await poller.poll() }
        #expect(error?.description == "\(h.dovecot.url()): the done folder 'Filed' does not exist; create it, or give --done-keyword instead of --done-folder")
        #expect(try await h.store.mailMessages(limit: 10).isEmpty)
        try await h.dovecot.create("Filed")
        #expect(try await poller.poll().outcomes.count == 1)
        #expect(try await h.dovecot.uids().isEmpty, "moved once filed")
        #expect(try await h.dovecot.uids(in: "Filed").count == 1)
    }

    /// The first scan takes the last `--max-age` only, by the date the server received each
    /// message (Maildir keeps it as the file's time: set back here, as an old mailbox's would be);
    /// a later message is taken whatever its age, since the watermark is then below it.
    @Test func theFirstScanSkipsMessagesOlderThanTheMaximumAge() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        try await h.append(["fuel-app-html", "parking-app-jsonld"])
        let maildir = h.dovecot.folder.appendingPathComponent("mail/\(DovecotTestServer.user)")
        let files = try ["cur", "new"].flatMap { sub in
            ((try? FileManager.default.contentsOfDirectory(atPath: maildir.path + "/" + sub)) ?? []).map { maildir.path + "/\(sub)/\($0)" }
        }
        #expect(files.count == 2, "\(files)")
        // The old message's file is found by its Message-ID: Maildir names do not sort by delivery
        // (their microseconds are not zero-padded, so `M100000` sorts before `M99999`).
        let messageId = { (path: String) in try MIMEMessage(Data(contentsOf: URL(fileURLWithPath: path))).messageId }
        let oldMessageId = try #require(try messageId(ReceiptsCLI.testReceipt("email/fuel-app-html.eml")))
        let old = try #require(files.first { (try? messageId($0)) == oldMessageId })
        let sixtyDaysAgo = Date().addingTimeInterval(-60 * 86400)
        try FileManager.default.setAttributes([.modificationDate: sixtyDaysAgo], ofItemAtPath: old)
        let report = try await h.poller { $0.maxAge = 30 * 86400 }.poll()
        #expect(report.outcomes.map { $0.message.subject ?? "" } == [try Self.subject("parking-app-jsonld")])
        #expect(try await h.store.mailboxWatermark(h.dovecot.url())?.lastUID == 2)
        try await h.append(["ride-nested-table"])
        #expect(try await h.poller { $0.maxAge = 30 * 86400 }.poll().outcomes.count == 1)
        #expect(try await h.store.mailMessages(limit: 10).count == 2, "the old message is never taken")
    }

    @Test func imapsWithAPrivateCANeedsTheCAFile() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        try await h.append(["parking-app-jsonld"])
        let error = await #expect(throws: ReceiptError.self) { try await h.poller(tls: true).poll() }
        #expect(error?.description.hasPrefix("\(h.dovecot.url(tls: true)): the server's certificate is not trusted (give the CA that signed it with --ca-file)") == true)
        #expect(error.map { !$0.description.contains("\n") } == true)
        let report = try await h.poller(tls: true) { $0.account.caFile = h.dovecot.caFile }.poll()
        #expect(report.outcomes.count == 1 && report.outcomes[0].message.mailbox.hasPrefix("imaps://"))
    }

    @Test func aWrongPasswordIsOneLineNamingTheMailbox() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        let error = await #expect(throws: ReceiptError.self) { try await h.poller(password: "wrong").poll() }
        #expect(error?.code == .mailbox)
        #expect(error?.description.hasPrefix("\(h.dovecot.url()): the server refused the user name or password (check --password-file)") == true)
        let missing = await #expect(throws: ReceiptError.self) { try await h.poller("Nowhere").poll() }
        #expect(missing?.description.hasPrefix("\(h.dovecot.url("Nowhere")): there is no folder 'Nowhere'") == true)
        let down = await #expect(throws: ReceiptError.self) {
            try await MailboxPoller(configuration: MailboxConfiguration(account: try IMAPAccount(url: "imap://driver@127.0.0.1:\(PostgresTestServer.freePort())/INBOX", password: "x")),
                                    filer: MailFiler(pipeline: h.pipeline, store: h.store, logger: TestSupport.logger),
                                    store: h.store, logger: TestSupport.logger).poll()
        }
        #expect(down?.description.contains("cannot connect to 127.0.0.1") == true)
    }

    @Test func aDoneActionCutShortIsAppliedAtTheNextPollAndTheMessageIsNotReadAgain() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        try await h.append(["fuel-app-html"])
        let pause = h.dir.path("paused")
        let stopped = try h.poller { $0.pauseBeforeDoneAction = pause }
        let task = Task { try await stopped.poll() }
        #expect(try await eventually(timeout: 30) { FileManager.default.fileExists(atPath: pause) })
        task.cancel()
        _ = await task.result
        // Committed, not done.
        #expect(try await h.dovecot.uids(keyword: "$ReceiptImported").isEmpty)
        #expect(try await h.store.pendingDoneActions(mailbox: h.dovecot.url(), uidValidity: h.dovecot.uidValidity()).count == 1)
        let report = try await h.poller().poll()
        #expect(report.outcomes.isEmpty, "the message is not read again")
        #expect(try await h.dovecot.uids(keyword: "$ReceiptImported") == [1])
        #expect(try await h.store.receipts(ReceiptQuery(), in: .everyone).count == 1)
    }

    @Test func sendersNotAllowedAreLeftAlone() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        try await h.append(Self.names)
        let report = try await h.poller { $0.fromPatterns = ["*@pumpway.example"] }.poll()
        #expect(report.outcomes.map { $0.message.subject ?? "" } == ["Your Pumpway receipt", "Welcome to Pumpway Rewards"])
        #expect(report.skipped == 5)
        #expect(try await h.dovecot.uids(keyword: "$ReceiptImported") == [1, 7])
        #expect(try await h.poller { $0.fromPatterns = ["*@pumpway.example"] }.poll().outcomes.isEmpty)
    }

    @Test func aMessageOverTheLimitIsAFailedReceiptNamingIt() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        try await h.append(["forwarded-phone-photo"])
        let report = try await h.poller { $0.maxMessageBytes = 100_000 }.poll()
        let receipt = try #require(report.outcomes.first?.receipts.first)
        #expect(receipt.ocrStatus == .failed)
        #expect(receipt.lastError?.hasPrefix("\"Fwd: Fuel receipt\" from Jo Finance <jo@fleet.example>: the message is 0.3 MB, over the limit of 0.1 MB (--max-message-mb)") == true)
        #expect(report.outcomes.first?.message.note?.hasPrefix("too large") == true)
    }

    @Test func aMailboxThatCannotBeReadIsReportedFailingWhilePolling() async throws {
        let h = try await Harness()
        defer { h.dovecot.stop() }
        let poller = try h.poller(password: "wrong")
        #expect(poller.status.state == .starting)
        let task = Task { try await poller.run() }
        #expect(try await eventually(timeout: 30) { poller.status.state == .failing })
        #expect(poller.status.error?.contains("user name or password") == true)
        task.cancel()
        _ = await task.result
    }

    static func subject(_ name: String) throws -> String {
        try JSONValue.parse(String(contentsOfFile: ReceiptsCLI.testReceipt("email/\(name).expected.json"), encoding: .utf8))["subject"]?.stringValue ?? ""
    }
}
