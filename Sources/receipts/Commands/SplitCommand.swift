import ArgumentParser
import Foundation
import Logging
import ReceiptKit

struct SplitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Make a receipt of each picture of a receipt read from several pictures.",
        discussion: """
            For pictures of different receipts sent as one (`process --one-receipt`, a multipart upload, \
            `POST /v1/receipts/{id}/pictures`): such a receipt is flagged for review, its analysis.review \
            naming "pictures" (two of them share no row) or "lineItems" (its items add up to far from its \
            total). Each picture becomes a receipt of its own and is read on its own; the receipt and its \
            drafted expense are deleted. A picture you have already as a receipt is that receipt.

            ID may be the first characters of the id (at least 4), as `receipts list` prints it. The new \
            receipts are read here, on all cores, and their records printed in picture order as \
            `receipts process` prints them (--format); --no-work only splits, leaving them to workers elsewhere (`receipts worker`, \
            `serve`). A receipt whose expense is confirmed (a person's record), or of one picture, is not \
            split.

            Exit status: 0 when every new receipt completed (or, with --no-work, was made), 1 when any \
            failed, the receipt is unknown or cannot be split, or the store cannot be used.
            """)

    @Argument(help: "The receipt id (or its first 4+ characters).")
    var id: String

    @Option(help: "Output format: ndjson, json, csv or table (default: table on a terminal, else ndjson).")
    var format: OutputFormatOption?

    @Flag(name: .customLong("no-work"), help: "Only split: leave the new receipts pending for other hosts' workers; read nothing here.")
    var noWork = false

    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var userOptions: ReadingUserOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try pipeline.requireWorkers()
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let processor = try pipeline.makeProcessor(logger: logger)
        let started = ContinuousClock.now
        let receiptPipeline: ReceiptPipeline, split: [(receipt: Receipt, isNew: Bool)], owner: String
        do {
            let configuration = ReceiptPipeline.Configuration(taxonomy: processor.options.taxonomy, workers: pipeline.workers).advised
            let opened = try await storeOptions.open(maximumConnections: configuration.workers + 4, logger: logger)
            receiptPipeline = ReceiptPipeline(store: opened.store, images: opened.images, processor: processor,
                                              configuration: configuration, logger: logger)
            let mine = receiptPipeline.scoped(to: try await userOptions.principal(opened.store))
            let receipt = try await mine.records.receipt(idPrefix: id)
            split = try await mine.split(receipt.id)
            owner = receipt.ownership.owner
            let noun = split.count == 1 ? "receipt" : "receipts"
            if !logging.quiet {
                FileHandle.standardError.write(Data("split receipt \(receipt.id.uuidString.lowercased()) (\(receipt.filePath)) into \(split.count) \(noun)\n".utf8))
            }
        } catch let error as ReceiptError {
            printError(error)
            throw ExitCode(1)
        }
        let writer = RecordWriter(format: format?.value ?? .automatic, columns: ProcessCommand.columns, baseFolders: [])
        writer.begin()
        var summary = ProcessCommand.Summary()
        do {
            if noWork {
                let mine = receiptPipeline.scoped(to: Principal(filing: Ownership(owner: owner)))
                for (receipt, _) in split {
                    let outcome = ReceiptOutcome(source: receipt.filePath, receipt: receipt, expense: try await mine.expense(forReceipt: receipt.id),
                                                 isDuplicate: false)
                    summary.count(outcome)
                    writer.write(outcome.record.json)
                }
            } else {
                // Printed in picture order once all are read (a few receipts).
                var done: [UUID: ReceiptOutcome] = [:]
                try await processor.engine.withRunning { _ in
                    for try await outcome in receiptPipeline.process(split.map { .receipt($0.receipt.id) }, as: Ownership(owner: owner)) {
                        done[outcome.receipt.id] = outcome
                    }
                }
                for outcome in split.compactMap({ done[$0.receipt.id] }) {
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
        if !logging.quiet { FileHandle.standardError.write(Data((summary.line(elapsed: ContinuousClock.now - started) + "\n").utf8)) }
        if summary.failed > 0 { throw ExitCode(1) }
    }
}
