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

            A file that cannot be read (empty, truncated, not an image, a HEIC without its codec, too large) becomes \
            a failed record naming the file and the cause; the rest of the batch goes on. A PATH that does \
            not exist, or a folder with no receipt images in it, is a usage error: nothing is stored.

            A summary goes to stderr at the end (-q leaves it out): receipts completed, failed and \
            flagged for review, and the time taken. In a table, file paths are shortened from the left \
            (…/name.jpg) and an error shows its cause.

            Pictures of a long receipt named NAME-1.jpg, NAME-2.jpg… (in one folder) are read together, as \
            the watched folder reads them: they are one receipt when each overlaps the one before (the \
            rows two pictures both show), and receipts of their own otherwise (a number in a name is no \
            evidence; a name ending in a date, receipt-2024-03-14.jpg, is never a picture number). \
            --no-join reads every file as a receipt of its own.

            --one-receipt reads all the PATHs as the pictures of one receipt, top to bottom: a long \
            receipt photographed in several overlapping pictures (`receipts process --one-receipt top.jpg \
            middle.jpg bottom.jpg`, or a folder: its pictures in name order, IMG_9 before IMG_10). Each \
            picture is read by the readers, the rows two pictures both show are kept once, and the \
            record is one receipt (named by the first picture; analysis.pictures lists them all). \
            Pictures that share no row, or whose items add up to far from the total, are flagged for review \
            (analysis.review names "pictures" or "lineItems"): they may be different receipts; `receipts \
            split ID` makes a receipt of each picture.

            --no-work only submits: each receipt is stored as pending (its record says so) for workers \
            elsewhere (`receipts worker`, `serve`) to read; nothing is read here.

            Exit status: 0 when every receipt completed (or, with --no-work, was submitted), 1 when any \
            failed, 2 for usage errors (a missing PATH, no images).
            """)

    @Argument(help: "Image files or folders.")
    var paths: [String]

    @Option(help: "Output format: ndjson, json, csv or table (default: table on a terminal, else ndjson).")
    var format: OutputFormatOption?

    @Flag(help: "Read images again even when the store already has them.")
    var force = false

    @Flag(name: .customLong("one-receipt"), help: "The PATHs are the pictures of one long receipt, top to bottom (a folder: its pictures in name order).")
    var oneReceipt = false

    @Flag(name: .customLong("no-join"), help: "Read NAME-1.jpg, NAME-2.jpg… as receipts of their own, not as one long receipt's pictures.")
    var noJoin = false

    @Flag(name: .customLong("no-work"), help: "Only submit: store the receipts as pending for other hosts' workers; read nothing here.")
    var noWork = false

    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var userOptions: FilingUserOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try pipeline.requireWorkers()
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let processor = try pipeline.makeProcessor(logger: logger)
        let files = try collectFiles()
        if noWork {
            try await submitOnly(files, processor: processor, logger: logger)
            return
        }
        try await processor.engine.withRunning { _ in try await process(files, with: processor, logger: logger) }
    }

    /// The images to read: every PATH must exist, and together they must hold at least one image
    /// (a usage error otherwise, before anything is stored). With --one-receipt, a folder's
    /// pictures come in name order (numbers as numbers).
    private func collectFiles() throws -> [String] {
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            printError("\(path): no such file or folder")
            throw ExitCode(2)
        }
        let files = oneReceipt ? paths.flatMap { path in PictureGroup.inNameOrder(InputCollector().collect([path])) }
            : InputCollector().collect(paths)
        guard !files.isEmpty else {
            printError("no receipt images found in \(paths.joined(separator: " ")) (looked for \(ReceiptFile.imageExtensions.sorted().map { "." + $0 }.joined(separator: " ")))")
            throw ExitCode(2)
        }
        return files
    }

    /// The pipeline on the store, and whose the receipts become (`--user`).
    private func openPipeline(_ processor: ReceiptProcessor, logger: Logger) async throws -> (ReceiptPipeline, Ownership) {
        do {
            let configuration = ReceiptPipeline.Configuration(taxonomy: processor.options.taxonomy, workers: pipeline.workers).advised
            let opened = try await storeOptions.open(maximumConnections: configuration.workers + 4, logger: logger)
            let ownership = try await userOptions.ownership(opened.store)
            return (ReceiptPipeline(store: opened.store, images: opened.images, processor: processor, configuration: configuration,
                                    logger: logger), ownership)
        } catch {
            printError(error)
            throw ExitCode(1)
        }
    }

    private func process(_ files: [String], with processor: ReceiptProcessor, logger: Logger) async throws {
        let (receiptPipeline, ownership) = try await openPipeline(processor, logger: logger)
        let started = ContinuousClock.now
        let writer = RecordWriter(format: format?.value ?? .automatic, columns: Self.columns, baseFolders: paths)
        let progress = ProgressBar(total: oneReceipt ? 1 : files.count)
        writer.begin()
        var summary = Summary()
        do {
            let items = oneReceipt && files.count > 1 ? [BatchItem.pictures(files)]
                : noJoin ? files.map(BatchItem.file) : BatchItem.joiningPictures(files)
            for try await outcome in receiptPipeline.process(items, as: ownership, force: force) {
                let failed = outcome.receipt.ocrStatus == .failed
                summary.count(outcome)
                progress.clear()
                writer.write(outcome.record.json)
                progress.advance(failed: failed, count: outcome.analysis?.pictureRuns?.joined().count ?? 1)
            }
        } catch {
            progress.finish()
            writer.end()
            printError(error)
            throw ExitCode(1)
        }
        writer.end()
        progress.finish()
        if !logging.quiet { FileHandle.standardError.write(Data((summary.line(elapsed: ContinuousClock.now - started) + "\n").utf8)) }
        if summary.failed > 0 { throw ExitCode(1) }
    }

    /// `--no-work`: each file stored as pending (or found known), its record printed.
    private func submitOnly(_ files: [String], processor: ReceiptProcessor, logger: Logger) async throws {
        let (receiptPipeline, ownership) = try await openPipeline(processor, logger: logger)
        let started = ContinuousClock.now
        let writer = RecordWriter(format: format?.value ?? .automatic, columns: Self.columns, baseFolders: paths)
        writer.begin()
        var summary = Summary()
        do {
            for file in oneReceipt && files.count > 1 ? [files[0]] : files {
                let receipt = oneReceipt && files.count > 1 ? try await receiptPipeline.submit(picturesAt: files, as: ownership, force: force)
                    : try await receiptPipeline.submit(imageAt: file, as: ownership, force: force)
                let expense = try await receiptPipeline.scoped(to: Principal(filing: ownership)).expense(forReceipt: receipt.id)
                let outcome = ReceiptOutcome(source: file, receipt: receipt, expense: expense, isDuplicate: false)
                summary.count(outcome)
                writer.write(outcome.record.json)
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

    /// What a batch came to, for the line printed after it.
    struct Summary {
        var completed = 0, failed = 0, flagged = 0, pending = 0

        mutating func count(_ outcome: ReceiptOutcome) {
            switch outcome.receipt.ocrStatus {
            case .completed:
                completed += 1
                if outcome.expense?.needsReview ?? outcome.analysis?.confidence.needsReview ?? false { flagged += 1 }
            case .failed: failed += 1
            case .pending, .processing: pending += 1
            }
        }

        /// `3 receipts: 2 completed (1 flagged for review), 1 failed, in 4.2 s`.
        func line(elapsed: Duration) -> String {
            let total = completed + failed + pending
            var parts = ["\(completed) completed (\(flagged) flagged for review)", "\(failed) failed"]
            if pending > 0 { parts.append("\(pending) submitted for other workers") }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return "\(total) \(total == 1 ? "receipt" : "receipts"): \(parts.joined(separator: ", ")), in \(String(format: "%.1f", seconds)) s"
        }
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
