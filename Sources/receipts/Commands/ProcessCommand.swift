import ArgumentParser
import Foundation
import Logging
import ReceiptKit

struct ProcessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "OCR and analyze receipt images; print one result per receipt as soon as it is done.",
        discussion: """
            PATH may be image files or folders (searched recursively for .jpg .jpeg .png .tif .tiff .webp \
            .bmp .gif .heic .heif .avif .pdf; formats are told by their bytes, not their name). A PDF with a text \
            layer is read exactly, without OCR; a PDF of a scan is rendered at 300 dpi and read (see --max-pdf-pages). Receipts are read on all cores; each result is printed when its receipt is \
            done, so the order may differ from the input order.

            Every receipt goes through the store (see --store): it is recorded as pending, then completed \
            with its analysis and a drafted expense, or failed with its error. Images already in the store \
            (same bytes) are not read again: their stored result is printed (use --force to read them \
            again); an image whose receipt failed is tried again. An interrupted run loses nothing: run \
            it again and it carries on.

            Output (--format): ndjson (default when stdout is not a terminal) prints one JSON object per line:
              {"file", "receiptId", "ocrStatus": "completed"|"failed", "analysis": {...}|null,
               "expense": {...}|null, "error": "<one line>"|null}
            json prints the same records as one array, csv and table one row per receipt (table is the \
            default on a terminal). Amounts are exact decimals; dates are YYYY-MM-DD.

            A file that cannot be read (missing, empty, truncated, not an image, a HEIC without its codec, too large) becomes \
            a failed record naming the file and the cause; the rest of the batch goes on.

            Exit status: 0 when every receipt completed, 1 when any failed, 2 for usage errors.
            """)

    @Argument(help: "Image files or folders.")
    var paths: [String]

    @Option(help: "Output format: ndjson, json, csv or table (default: table on a terminal, else ndjson).")
    var format: OutputFormatOption?

    @Flag(help: "Read images again even when the store already has them.")
    var force = false

    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap()
        let processor = try pipeline.makeProcessor(logger: logger)
        try await processor.engine.withRunning { _ in try await process(with: processor, logger: logger) }
    }

    private func process(with processor: ReceiptProcessor, logger: Logger) async throws {
        let receiptPipeline: ReceiptPipeline
        do {
            receiptPipeline = try await ReceiptPipeline.open(
                try storeOptions.location(), imagesDirectory: storeOptions.images, processor: processor,
                configuration: .init(taxonomy: processor.options.taxonomy, workers: pipeline.workers), logger: logger)
        } catch {
            printError("\(error)")
            throw ExitCode(1)
        }

        let files = InputCollector().collect(paths)
        let writer = RecordWriter(format: format?.value ?? .automatic, columns: Self.columns)
        let progress = ProgressBar(total: files.count)
        writer.begin()
        var failures = 0
        // Paths that cannot be receipts at all (missing, folders named like images) are reported
        // by the store as failed receipts too, so they show up in `receipts list --status failed`.
        do {
            for try await outcome in receiptPipeline.process(files: files, force: force) {
                let failed = outcome.receipt.ocrStatus == .failed
                if failed { failures += 1 }
                progress.clear()
                writer.write(outcome.record.json)
                progress.advance(failed: failed)
            }
        } catch {
            progress.finish()
            writer.end()
            printError("\(error)")
            throw ExitCode(1)
        }
        writer.end()
        progress.finish()
        if files.isEmpty { printError("no receipt images found in \(paths.joined(separator: " "))") }
        if failures > 0 { throw ExitCode(1) }
    }

    static let columns: [Column] = [
        Column("file", "file", width: 28), Column("status", "ocrStatus", width: 9),
        Column("vendor", "analysis.vendor", width: 24), Column("date", "analysis.date", width: 10),
        Column("total", "analysis.total", width: 9), Column("tax", "analysis.tax", width: 7),
        Column("currency", "analysis.currency", width: 8), Column("category", "analysis.category", width: 11),
        Column("review", "analysis.confidence.needsReview", width: 6), Column("error", "error", width: 40),
    ]
}

struct OutputFormatOption: ExpressibleByArgument {
    var value: OutputFormat
    init?(argument: String) {
        guard let f = OutputFormat(rawValue: argument.lowercased()) else { return nil }
        value = f
    }
    static var allValueStrings: [String] { OutputFormat.allCases.map(\.rawValue) }
}
