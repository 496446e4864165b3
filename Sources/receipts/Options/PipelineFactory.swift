import ArgumentParser
import Foundation
import Logging
import ReceiptKit

/// Flags for how receipts are read, shared by commands that run the pipeline (`watch`; `process`
/// declares the same flags itself for now).
struct AnalysisFlags: ParsableArguments {
    @Option(help: "Receipts read at once (default: the number of cores).")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Currency (ISO 4217) to assume when a receipt shows none (default: leave it empty).")
    var defaultCurrency: String?

    @Option(help: "How to read an ambiguous date like 03/04/2024 when the receipt gives no hint: day-first or month-first.")
    var dateOrder: DateOrder = .dayFirst

    @Option(help: "Taxonomy file (JSON) with the expense categories; see the README for its format.")
    var taxonomy: String?

    func validate() throws {
        guard workers >= 1 && workers <= 256 else { throw ValidationError("--workers must be between 1 and 256.") }
        if let defaultCurrency, !(defaultCurrency.count == 3 && defaultCurrency.allSatisfy(\.isLetter)) {
            throw ValidationError("--default-currency must be a three-letter ISO 4217 code such as GBP.")
        }
    }

    /// Reads the taxonomy file; a bad one prints its error and exits with 2.
    func analysisOptions() throws -> AnalysisOptions {
        AnalysisOptions(taxonomy: try loadTaxonomy(taxonomy), defaultCurrency: defaultCurrency?.uppercased(), dateOrder: dateOrder)
    }
}

/// Builds the real processor (Tesseract + the chosen analyzer) and the pipeline from the flags.
enum PipelineFactory {
    /// The engine is returned too: call `engine.shutdown()` when done. Missing language data or a
    /// bad taxonomy print one line and exit with 2; analyzer configuration problems are usage errors.
    static func makeProcessor(ocr: OCROptions, analysis: AnalysisFlags, remote: RemoteOptions,
                              logger: Logger) throws -> (processor: ReceiptProcessor, engine: OCREngine) {
        let options = try analysis.analysisOptions()
        let analyzer = try remote.makeAnalyzer(heuristic: MinimalAnalyzer(), logger: logger)
        let engine = try ocr.makeEngine(threads: analysis.workers, logger: logger)
        return (ReceiptProcessor(engine: engine, analyzer: analyzer, options: options, logger: logger), engine)
    }

    /// Opens the store at `path` for a pipeline with these settings. A store that cannot be
    /// opened prints one line and exits with 2.
    static func makePipeline(storePath: String, processor: any ReceiptProcessing, analysis: AnalysisOptions,
                             workers: Int, logger: Logger) throws -> ReceiptPipeline {
        do {
            return try ReceiptPipeline(storePath: storePath, processor: processor,
                                       configuration: ReceiptPipeline.Configuration(taxonomy: analysis.taxonomy, workers: workers),
                                       logger: logger)
        } catch let error as StoreError {
            printError(error.description)
            throw ExitCode(2)
        }
    }
}
