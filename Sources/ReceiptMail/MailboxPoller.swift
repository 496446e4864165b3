import Foundation
import Logging
import ReceiptKit
import ServiceLifecycle
import Synchronization

/// Polls one IMAP mailbox by UID watermark and UIDVALIDITY (not by UNSEEN: a receipt read on a
/// phone is still a receipt), filing each new message through a `MailFiler`.
///
/// A poll: `STATUS` for UIDVALIDITY and UIDNEXT (a wrong password, an unreachable server or a
/// missing folder fails here, before anything is read); the done-actions still due from earlier
/// polls; `UID SEARCH UID last+1:*`; each message fetched whole by UID and filed in UID order,
/// the watermark passing each as it is committed; then its done-action. The first scan of a
/// mailbox takes messages of the last `maxAge` only (the watermark starts just below the first); a UIDVALIDITY change reads the folder again
/// and relies on the store's dedup (SHA-256, Message-ID) to file nothing twice.
///
/// As a `Service` (`run()`), it polls every `interval` until shutdown; a poll that fails is tried
/// again after 5 s, 10 s, 20 s … (at most 10 minutes apart), and `status` says so (`/readyz`).
public final class MailboxPoller: Service, Sendable {
    public let configuration: MailboxConfiguration
    let filer: MailFiler
    let store: any MailStore
    let logger: Logger
    private let state = Mutex(MailboxStatus.State.starting)
    private let lastError = Mutex<String?>(nil)

    public init(configuration: MailboxConfiguration, filer: MailFiler, store: any MailStore, logger: Logger) {
        self.configuration = configuration
        self.filer = filer
        self.store = store
        self.logger = logger
    }

    public var name: String { configuration.account.name }

    /// How the mailbox's polls go, for `/readyz`.
    public var status: MailboxStatus {
        MailboxStatus(mailbox: name, state: state.withLock { $0 }, error: lastError.withLock { $0 })
    }

    /// What one poll did.
    public struct Report: Sendable {
        /// Messages filed or found to be duplicates, in UID order.
        public var outcomes: [MailFiler.Outcome] = []
        /// Messages left alone: from a sender not in `--from`.
        public var skipped = 0
        /// Done-actions that failed (tried again at the next poll), one line each.
        public var doneActionErrors: [String] = []
    }

    // MARK: One poll

    /// Reads what is new in the mailbox. Throws a `ReceiptError` (one line naming the mailbox and
    /// the cause) when the mailbox cannot be read or the store cannot be written; messages filed
    /// before that stay filed.
    public func poll() async throws -> Report {
        let imap = try IMAPSession(configuration.account)
        defer { imap.close() }
        let account = configuration.account
        let mailbox = account.name
        var report = Report()

        let (validity, uidNext) = try await imap.run { try $0.status(of: account.folder) }
        if case let .move(folder) = configuration.doneAction, !(try await imap.run({ try $0.folderExists(folder) })) {
            throw ReceiptError(.mailbox, file: mailbox,
                               "the done folder '\(folder)' does not exist; create it, or give --done-keyword instead of --done-folder")
        }
        var since: Date?
        var after: Int64 = 0
        let watermark = try await store.mailboxWatermark(mailbox)
        if let watermark, watermark.uidValidity == validity {
            after = watermark.lastUID
        } else if let watermark {
            logger.warning("The folder's UIDVALIDITY changed: reading it again; messages filed before are known by their content",
                           metadata: ["mail.mailbox": "\(mailbox)", "mail.uidValidity.was": "\(watermark.uidValidity)",
                                      "mail.uidValidity": "\(validity)"])
            try await store.setMailboxWatermark(mailbox, uidValidity: validity, lastUID: 0, now: Date())
        } else {
            // The first scan: messages of the last `maxAge` only. The watermark is written at once,
            // just below the first of them (or at UIDNEXT − 1 when there is none), so that an
            // interrupted first scan carries on from where it stopped.
            since = Date().addingTimeInterval(-configuration.maxAge)
        }

        // Done-actions due from earlier polls (a failed one, or a process that died before it).
        for message in try await store.pendingDoneActions(mailbox: mailbox, uidValidity: validity) {
            if let uid = message.uid, let error = await applyDoneAction(uid: uid, imap: imap) {
                report.doneActionErrors.append("\(message.described): \(error)")
                continue
            }
            try await store.markMessageDone(id: message.id, now: Date())
        }

        let (from, sinceDate) = (after, since)
        let uids = try await imap.run { try $0.search(after: from, since: sinceDate) }
        if since != nil {
            try await store.setMailboxWatermark(mailbox, uidValidity: validity, lastUID: (uids.first ?? uidNext) - 1, now: Date())
        }
        for uid in uids {
            try Task.checkCancellation()
            let origin = MailFiler.Origin(mailbox: mailbox, uidValidity: validity, uid: uid)
            let limit = configuration.maxMessageBytes
            let outcome: MailFiler.Outcome
            let (size, seen) = try await imap.run { try $0.sizeAndSeen(uid: uid) }
            // Fetching a body marks it read: a message unread before is left unread (best effort).
            let keepUnread: @Sendable () async -> Void = { if !seen { _ = try? await imap.run { try $0.markUnseen(uid: uid) } } }
            if let size, size > limit {
                let header = try await imap.run { try $0.fetchHeader(uid: uid, uidValidity: validity) }
                await keepUnread()
                guard configuration.accepts(sender: (try? MIMEMessage(header))?.fromAddress) else {
                    try await skip(uid: uid, validity: validity, &report)
                    continue
                }
                outcome = try await filer.fileOversized(header: header, size: size, limit: limit, origin: origin, as: configuration.ownership)
            } else {
                let raw = try await imap.run { try $0.fetch(uid: uid, uidValidity: validity, maxBytes: limit) }
                await keepUnread()
                guard configuration.accepts(sender: (try? MIMEMessage(raw))?.fromAddress) else {
                    try await skip(uid: uid, validity: validity, &report)
                    continue
                }
                outcome = try await filer.file(raw, origin: origin, as: configuration.ownership)
            }
            report.outcomes.append(outcome)
            if outcome.isDuplicate {
                // Known under another UID (or the same one, before a UIDVALIDITY change).
                try await store.setMailboxWatermark(mailbox, uidValidity: validity, lastUID: uid, now: Date())
            }
            if let pause = configuration.pauseBeforeDoneAction {
                _ = FileManager.default.createFile(atPath: pause, contents: Data("\(uid)\n".utf8))
                while true { try await Task.sleep(for: .seconds(3600)) }
            }
            if let error = await applyDoneAction(uid: uid, imap: imap) {
                report.doneActionErrors.append("\(outcome.described): \(error)")
            } else if !outcome.isDuplicate || outcome.message.uid == uid {
                try await store.markMessageDone(id: outcome.message.id, now: Date())
            }
        }
        for error in report.doneActionErrors {
            logger.warning("Done-action failed; tried again at the next poll", metadata: ["mail.mailbox": "\(mailbox)", "error": "\(error)"])
        }
        return report
    }

    private func skip(uid: Int64, validity: Int64, _ report: inout Report) async throws {
        report.skipped += 1
        logger.debug("Message skipped: its sender is not in --from", metadata: ["mail.mailbox": "\(name)", "mail.uid": "\(uid)"])
        try await store.setMailboxWatermark(name, uidValidity: validity, lastUID: uid, now: Date())
    }

    /// Applies the done-action; nil when it went through, else why not (one line).
    private func applyDoneAction(uid: Int64, imap: IMAPSession) async -> String? {
        let action = configuration.doneAction
        do {
            try await imap.run { connection in
                switch action {
                case let .keyword(keyword): try connection.addKeyword(keyword, uid: uid)
                case let .move(folder): try connection.move(uid: uid, to: folder)
                }
            }
            return nil
        } catch {
            return (error as? ReceiptError)?.description ?? "\(error)"
        }
    }

    // MARK: Polling until shutdown

    public func run() async throws {
        var failures = 0
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let delay: Duration
            do {
                let report = try await cancelWhenGracefulShutdown { try await self.poll() }
                state.withLock { $0 = .ok }
                lastError.withLock { $0 = nil }
                if failures > 0 { logger.info("Mailbox read again", metadata: ["mail.mailbox": "\(name)"]) }
                failures = 0
                logger.debug("Mailbox polled", metadata: ["mail.mailbox": "\(name)", "mail.messages": "\(report.outcomes.count)"])
                delay = configuration.interval
            } catch is CancellationError {
                break
            } catch {
                failures += 1
                let line = (error as? ReceiptError)?.description ?? "\(name): \(error)"
                state.withLock { $0 = .failing }
                lastError.withLock { $0 = line }
                delay = Self.backoff(failures: failures)
                logger.error("Mailbox cannot be read; trying again", metadata: ["mail.mailbox": "\(name)", "error": "\(line)",
                                                                                "mail.retryIn": "\(delay)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: delay) }
            } catch {
                break
            }
        }
    }

    /// 5 s, 10 s, 20 s … at most 10 minutes.
    static func backoff(failures: Int) -> Duration {
        .seconds(min(600, 5 << min(failures - 1, 10)))
    }
}

/// How a mailbox's polls go.
public struct MailboxStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Not polled yet.
        case starting
        /// The last poll went through.
        case ok
        /// The last poll failed: `error` says why; it is tried again with backoff.
        case failing
    }

    public var mailbox: String
    public var state: State
    public var error: String?
}

/// One poll's IMAP connection, on a thread of its own (libcurl blocks): the connection is made on
/// first use and only ever touched on `queue`.
final class IMAPSession: @unchecked Sendable {
    // @unchecked: `connection` is read and written only inside blocks run on the serial `queue`.
    private let queue = DispatchQueue(label: "receipts.mail.imap")
    private var connection: IMAPConnection?
    private let account: IMAPAccount

    init(_ account: IMAPAccount) throws {
        self.account = account
    }

    func run<T: Sendable>(_ body: @escaping @Sendable (IMAPConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result {
                    if self.connection == nil { self.connection = try IMAPConnection(self.account) }
                    return try body(self.connection!)
                })
            }
        }
    }

    /// Ends the connection (on the queue, after what was asked before).
    func close() {
        queue.async { self.connection = nil }
    }
}
