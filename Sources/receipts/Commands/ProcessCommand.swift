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
            .bmp .gif .heic). Receipts are read on all cores; each result is printed when its receipt is \
            done, so the order may differ from the input order.

            Output (--format): ndjson (default when stdout is not a terminal) prints one JSON object per line:
              {"file", "receiptId", "ocrStatus": "completed"|"failed", "analysis": {...}|null,
               "expense": {...}|null, "error": "<one line>"|null}
            json prints the same records as one array, csv and table one row per receipt (table is the \
            default on a terminal). Amounts are exact decimals; dates are YYYY-MM-DD.

            A file that cannot be read (missing, empty, truncated, not an image, HEIC, too large) becomes \
            a failed record naming the file and the cause; the rest of the batch goes on.

            Exit status: 0 when every receipt completed, 1 when any failed, 2 for usage errors.
            """)

    @Argument(help: "Image files or folders.")
    var paths: [String]

    @Option(help: "Output format: ndjson, json, csv or table (default: table on a terminal, else ndjson).")
    var format: OutputFormatOption?

    @Option(help: "Receipts read at once (default: the number of cores).")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Currency (ISO 4217) to assume when a receipt shows none (default: leave it empty).")
    var defaultCurrency: String?

    @Option(help: "How to read an ambiguous date like 03/04/2024 when the receipt gives no hint: day-first or month-first.")
    var dateOrder: DateOrder = .dayFirst

    @Option(help: "Taxonomy file (JSON) with the expense categories; see the README for its format.")
    var taxonomy: String?

    @OptionGroup var ocr: OCROptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard workers >= 1 && workers <= 256 else { throw ValidationError("--workers must be between 1 and 256.") }
        if let defaultCurrency, !(defaultCurrency.count == 3 && defaultCurrency.allSatisfy(\.isLetter)) {
            throw ValidationError("--default-currency must be a three-letter ISO 4217 code such as GBP.")
        }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let analysisOptions = AnalysisOptions(
            taxonomy: try loadTaxonomy(taxonomy), defaultCurrency: defaultCurrency?.uppercased(), dateOrder: dateOrder)
        let engine = try ocr.makeEngine(threads: workers, logger: logger)
        defer { engine.shutdown() }
        let processor = ReceiptProcessor(engine: engine, analyzer: makeAnalyzer(), options: analysisOptions, logger: logger)

        let items = InputCollector().collect(paths)
        let writer = RecordWriter(format: format?.value ?? .automatic, columns: Self.columns)
        let progress = ProgressBar(total: items.count)
        writer.begin()
        var failures = 0
        await withTaskGroup(of: ReceiptRecord.self) { group in
            var next = 0
            func startNext() {
                guard next < items.count else { return }
                let item = items[next]
                next += 1
                group.addTask { await Self.process(item, processor: processor, taxonomy: analysisOptions.taxonomy) }
            }
            for _ in 0..<min(items.count, workers * 2) { startNext() }
            for await record in group {
                if record.ocrStatus == .failed { failures += 1 }
                progress.clear()
                writer.write(record.json)
                progress.advance(failed: record.ocrStatus == .failed)
                startNext()
            }
        }
        writer.end()
        progress.finish()
        if items.isEmpty { printError("no receipt images found in \(paths.joined(separator: " "))") }
        if failures > 0 { throw ExitCode(1) }
    }

    static func process(_ item: InputCollector.Item, processor: ReceiptProcessor, taxonomy: Taxonomy) async -> ReceiptRecord {
        let id = UUID()
        guard case let .file(path) = item else {
            guard case let .invalid(path, reason) = item else { fatalError("unreachable") }
            return ReceiptRecord(file: path, receiptId: id, ocrStatus: .failed, error: "\(path): \(reason)")
        }
        do {
            let result = try await processor.process(imageAt: URL(fileURLWithPath: path), displayPath: path)
            let expense = Expense.draft(from: result.analysis, receiptId: id, taxonomy: taxonomy)
            return ReceiptRecord(file: path, receiptId: id, ocrStatus: .completed, analysis: result.analysis, expense: expense)
        } catch {
            let message = (error as? ReceiptError)?.description ?? "\(path): \(error)"
            return ReceiptRecord(file: path, receiptId: id, ocrStatus: .failed, error: message)
        }
    }

    static let columns: [Column] = [
        Column("file", "file", width: 28), Column("status", "ocrStatus", width: 9),
        Column("vendor", "analysis.vendor", width: 24), Column("date", "analysis.date", width: 10),
        Column("total", "analysis.total", width: 9), Column("tax", "analysis.tax", width: 7),
        Column("currency", "analysis.currency", width: 8), Column("category", "analysis.category", width: 11),
        Column("review", "analysis.confidence.needsReview", width: 6), Column("error", "error", width: 40),
    ]

    func makeAnalyzer() -> any ReceiptAnalyzer {
        MinimalAnalyzer()
    }
}

func loadTaxonomy(_ path: String?) throws -> Taxonomy {
    guard let path else { return .default }
    do {
        return try Taxonomy(contentsOf: URL(fileURLWithPath: path))
    } catch {
        printError("\(error)")
        throw ExitCode(2)
    }
}

struct OutputFormatOption: ExpressibleByArgument {
    var value: OutputFormat
    init?(argument: String) {
        guard let f = OutputFormat(rawValue: argument.lowercased()) else { return nil }
        value = f
    }
    static var allValueStrings: [String] { OutputFormat.allCases.map(\.rawValue) }
}

extension DateOrder: ExpressibleByArgument {}
