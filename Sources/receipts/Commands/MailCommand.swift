import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ReceiptMail
import ReceiptServerStore
import ServiceLifecycle

struct MailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail",
        abstract: "File the receipts that arrive in a mailbox (IMAP): attachments, forwarded photos, HTML e-receipts.",
        discussion: """
            Polls one IMAP folder and files each receipt it finds into the store, as `process` does \
            (the same queue, workers and records). Each attachment that is a PDF or an image by its \
            bytes is a receipt (forwarded messages' too; logos and tracking pixels, under 10 KB or \
            200 pixels on a side, are left out); a message without one is read from its HTML body, \
            exactly and without OCR (schema.org Order/Invoice data where the sender embeds it, else \
            the body's rows). A message with nothing usable becomes a failed record naming its \
            subject and sender. Each record has "source": {"kind": "email", "from", "subject", "messageId"}.

            Messages are read by UID, not by unread flag (mail read on a phone is still a receipt): the \
            store keeps each message whole and remembers how far the folder was read, so nothing is \
            filed twice and nothing is lost if the process stops anywhere. Once a message's receipts are \
            stored, it gets the keyword $ReceiptImported (--done-keyword) or is moved (--done-folder); \
            a done-action that fails is tried again at the next poll. The first scan of a mailbox takes \
            the last --max-age of mail. See docs/email.md.

            --once reads what is there, reads its receipts, prints their records (like `process`: \
            --format) and exits: 0, or 1 when a message's receipt failed or the mailbox cannot be read \
            (a wrong password, an unreachable server, a missing folder: one line naming the mailbox). \
            Without --once it polls every --interval until SIGTERM or Ctrl-C, reading receipts as they \
            come; a mailbox that cannot be read is tried again after 5 s, 10 s, 20 s … (at most 10 min).

            `receipts serve --mail-config FILE` polls mailboxes inside the server (see `serve --help`).

            Examples:
              receipts mail --imap imaps://receipts@mail.example.com/INBOX --password-file ~/.imap-password --once
              receipts mail --imap imaps://me@imap.example.com/Receipts --password-file pw --from '*@shell.example' --done-folder Receipts/Filed
            """)

    @OptionGroup(title: "Mailbox") var mail: MailOptions

    @Flag(help: "Read what is in the mailbox now, read its receipts, print their records and exit.")
    var once = false

    @Option(help: "Output format with --once: ndjson, json, csv or table (default: table on a terminal, else ndjson).")
    var format: OutputFormatOption?

    @Flag(name: .customLong("no-work"), help: "With --once, only file the messages: their receipts stay pending for workers elsewhere (`receipts worker`, `serve`).")
    var noWork = false

    @Option(name: .customLong("pause-before-done-action"), help: ArgumentHelp(
        "Test hook: after the first message is stored, write this file and wait to be killed.", visibility: .private))
    var pauseBeforeDoneAction: String?

    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try pipeline.requireWorkers()
        if noWork, !once { throw ValidationError("--no-work is for --once.") }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        var mailbox = try mail.configuration()
        mailbox.pauseBeforeDoneAction = pauseBeforeDoneAction
        let processor = try pipeline.makeProcessor(logger: logger)
        let opened: StoreOptions.Opened
        do {
            opened = try await storeOptions.open(maximumConnections: pipeline.workers + 4, logger: logger)
        } catch {
            printError(error)
            throw ExitCode(1)
        }
        defer { opened.close() }
        do {
            mailbox.ownership = try await FilingUserOptions.ownership(ofUser: mailbox.user, in: opened.store)
        } catch {
            printError(error)
            throw ExitCode(1)
        }
        let configuration = ReceiptPipeline.Configuration(taxonomy: processor.options.taxonomy, workers: pipeline.workers).advised
        let receiptPipeline = ReceiptPipeline(store: opened.store, images: opened.images, processor: processor,
                                              configuration: configuration, logger: logger)
        let filer = MailFiler(pipeline: receiptPipeline, store: opened.store, logger: logger)
        let poller = MailboxPoller(configuration: mailbox, filer: filer, store: opened.store, logger: logger)
        if once {
            try await processor.engine.withRunning { _ in try await readOnce(poller, receiptPipeline, as: mailbox.ownership) }
            return
        }
        var group = ServiceGroupConfiguration(
            services: [.init(service: processor.engine), .init(service: receiptPipeline), .init(service: poller)],
            gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(12)
        logger.info("Polling the mailbox", metadata: ["mail.mailbox": "\(poller.name)", "mail.interval": "\(mailbox.interval)",
                                                      "mail.done": "\(mailbox.doneAction)"])
        try await ServiceGroup(configuration: group).run()
    }

    /// `--once`: one poll, then its receipts read here (as the user they are filed for), their
    /// records printed. E-mailed receipts of that user still pending from an earlier run (one
    /// stopped before it read them) are read too, so none stays pending for good.
    private func readOnce(_ poller: MailboxPoller, _ receiptPipeline: ReceiptPipeline, as ownership: Ownership) async throws {
        let started = ContinuousClock.now
        let report: MailboxPoller.Report
        do {
            report = try await poller.poll()
        } catch {
            printError(error)
            throw ExitCode(1)
        }
        for line in report.doneActionErrors {
            printError("warning: \(line) (the done-action is tried again at the next poll)")
        }
        var seen = Set<UUID>()
        var ids = report.outcomes.filter { !$0.isDuplicate }.flatMap(\.receipts).map(\.id).filter { seen.insert($0).inserted }
        let mine = receiptPipeline.scoped(to: Principal(filing: ownership))
        if !noWork {
            let left = try await mine.receipts(ReceiptQuery(status: .pending, externalUser: ownership.externalUser, owner: ownership.owner))
            ids += left.filter { $0.source != nil && $0.ownership.externalUser == ownership.externalUser }.map(\.id)
                .filter { seen.insert($0).inserted }
        }
        let duplicates = report.outcomes.filter(\.isDuplicate).count
        let writer = RecordWriter(format: format?.value ?? .automatic, columns: ProcessCommand.columns, baseFolders: [])
        writer.begin()
        var summary = ProcessCommand.Summary()
        do {
            if noWork {
                for id in ids {
                    guard let receipt = try await mine.receipt(id: id) else { continue }
                    let outcome = ReceiptOutcome(source: receipt.filePath, receipt: receipt,
                                                 expense: try await mine.expense(forReceipt: id), isDuplicate: false)
                    summary.count(outcome)
                    writer.write(outcome.record.json)
                }
            } else {
                for try await outcome in receiptPipeline.process(ids.map(BatchItem.receipt), as: ownership) {
                    summary.count(outcome)
                    writer.write(outcome.record.json)
                }
            }
        } catch {
            writer.end()
            printError(error)
            throw ExitCode(1)
        }
        writer.end()
        if !logging.quiet {
            let messages = report.outcomes.count - duplicates
            var line = "\(poller.name): \(messages) new \(messages == 1 ? "message" : "messages")"
            if duplicates > 0 { line += ", \(duplicates) already filed" }
            if report.skipped > 0 { line += ", \(report.skipped) from other senders left alone" }
            FileHandle.standardError.write(Data((line + "; " + summary.line(elapsed: ContinuousClock.now - started) + "\n").utf8))
        }
        if summary.failed > 0 { throw ExitCode(1) }
    }
}
