import ArgumentParser
import Foundation
import Logging
import ReceiptKit

/// Everything needed to read receipts: OCR, analyzer, taxonomy, store and workers. Shared by the
/// commands that process receipts (`process`, `watch`, `eval`).
struct PipelineOptions: ParsableArguments {
    @Option(help: "Receipts read at once (default: the number of cores). `serve --workers 0` reads none: the API only, other hosts' workers read.")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Currency (ISO 4217) to assume when a receipt shows none (default: leave it empty).")
    var defaultCurrency: String?

    @Option(help: "How to read an ambiguous date like 03/04/2024 when the receipt gives no other hint: day-first or month-first.")
    var dateOrder: DateOrder = .dayFirst

    @Option(help: "Taxonomy file (JSON) with the expense categories and their tax-deductible share; see the README.")
    var taxonomy: String?

    @Option(name: .customLong("ocr-passes"), help: ArgumentHelp(
        "OCR passes per receipt at most: 1 is fastest; with more, the heuristic analyzer reads the page again when the total is unclear or the date missing (at another scale, or binarized) and reads unclear dates and names again, closer. Default: \(OCRSession.defaultMaxPasses) with --reader tesseract; 1 with the neural reader (each reader reads the page once, the other reading is the second opinion).",
        valueName: "N"))
    var ocrPasses: Int?

    @Option(help: ArgumentHelp(
        "Which receipts get their date's and vendor's rows read again as a check (a close-up pass or two each): unflagged, those whose total is clear enough for them to go unflagged (a receipt flagged for its total is looked at anyway); every receipt (about 1.3 passes a receipt more, for about 2 points of vendors and 1 of dates on the labelled receipts); or none (the learned model then has no agreement to weigh, and flags more receipts).",
        valueName: "unflagged|every|none"))
    var checks: ReadChecks = .unflagged

    @Option(name: .customLong("reread-passes"), help: ArgumentHelp(
        "Second passes of the heuristic analyzer, in order: PSM[@SCALE][b] comma-separated (b = binarized).",
        visibility: .hidden))
    var rereadPasses: String?

    @Option(help: ArgumentHelp(
        "Which text readers read each receipt: tesseract; neural (PP-OCR models, installed by `make neural`); or both, whose two readings the analyzer weighs against each other (where they agree on a value, it is far more likely right). Flag > $RECEIPTS_READER > both.",
        valueName: "tesseract|neural|both"))
    var reader: ReaderChoice?

    /// The readers to use: the flag, else `RECEIPTS_READER`, else both.
    func readers(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ReaderChoice {
        if let reader { return reader }
        guard let name = environment["RECEIPTS_READER"], !name.isEmpty else { return .both }
        guard let choice = ReaderChoice(rawValue: name) else {
            throw ValidationError("RECEIPTS_READER is '\(name)'; it must be tesseract, neural or both.")
        }
        return choice
    }

    @OptionGroup(title: "OCR") var ocr: OCROptions
    @OptionGroup(title: "Neural reader") var neural: NeuralOptions
    @OptionGroup(title: "Analyzer") var remote: RemoteOptions

    func validate() throws {
        _ = try readers()
        guard workers >= 0 && workers <= 256 else { throw ValidationError("--workers must be between 1 and 256 (0 only for serve).") }
        guard (ocrPasses ?? 1) >= 1 && (ocrPasses ?? 1) <= 10 else { throw ValidationError("--ocr-passes must be between 1 and 10.") }
        if let defaultCurrency, !(defaultCurrency.count == 3 && defaultCurrency.allSatisfy(\.isLetter)) {
            throw ValidationError("--default-currency must be a three-letter ISO 4217 code such as GBP.")
        }
    }

    /// For the commands that read receipts themselves (all but `serve`).
    func requireWorkers() throws {
        guard workers >= 1 else { throw ValidationError("--workers must be between 1 and 256.") }
    }

    func parsedRereadPasses() throws -> [OCRPass] {
        guard let rereadPasses else { return HeuristicAnalyzer.defaultRereadPasses }
        return try rereadPasses.split(separator: ",").map { spec in
            var text = Substring(spec)
            let binarize = text.hasSuffix("b")
            if binarize { text = text.dropLast() }
            let parts = text.split(separator: "@")
            guard let psm = Int(parts[0]), let scale = parts.count > 1 ? Double(parts[1]) : 1 else {
                throw ValidationError("--reread-passes: cannot read '\(spec)'")
            }
            return OCRPass(pageSegmentationMode: psm, scale: scale, binarize: binarize)
        }
    }

    func analysisOptions() throws -> AnalysisOptions {
        var options = AnalysisOptions(taxonomy: try loadTaxonomy(taxonomy), defaultCurrency: defaultCurrency?.uppercased(),
                                      dateOrder: dateOrder)
        options.checks = checks
        return options
    }

    /// The OCR engine (one thread per worker) and the chosen analyzer, ready to process receipts.
    func makeProcessor(logger: Logger) throws -> ReceiptProcessor {
        let options = try analysisOptions()
        let threads = max(1, workers)
        // The networks are compiled once for the process; every OCR thread runs them.
        let reader = try readers()
        let models = reader == .tesseract ? nil : try neural.load(streams: threads, logger: logger)
        let engine = try ocr.makeEngine(threads: threads, neural: models, logger: logger)
        let analyzer: any ReceiptAnalyzer
        do {
            analyzer = try remote.makeAnalyzer(heuristic: HeuristicAnalyzer(rereadPasses: try parsedRereadPasses()), imagePreparer: engine.imagePreparer, logger: logger)
        } catch let error as ValidationError {
            printError(error.message)
            throw ExitCode(2)
        }
        return ReceiptProcessor(engine: engine, analyzer: analyzer, options: options, maxPasses: ocrPasses, readers: reader, logger: logger)
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

extension DateOrder: ExpressibleByArgument {}
extension ReadChecks: ExpressibleByArgument {}
