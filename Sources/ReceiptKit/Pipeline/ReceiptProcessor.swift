import Foundation
import Logging
import Synchronization

/// The real `ReceiptProcessing`: Tesseract OCR, then an analyzer that may ask for a second,
/// targeted OCR pass over the same image.
public struct ReceiptProcessor: ReceiptProcessing {
    public let engine: OCREngine
    public let analyzer: any ReceiptAnalyzer
    public let options: AnalysisOptions
    public let logger: Logger
    /// Second OCR passes an analyzer may ask for per receipt (each costs about one more OCR).
    public let maxExtraPasses: Int

    /// OCR passes per receipt by default: the first, and up to four the analyzer asks for (at
    /// most two whole pages; the rest are close-ups of a few rows, a quarter of a page's cost).
    /// Measured on ../shared/receipts: 4 against 3, SROIE dates 92% → 93% (a fourth pass on a
    /// tenth of the receipts); 5 against 4, the vendor close-up no longer loses to the date's
    /// (10 more close-ups on 210 receipts, WildReceipt vendors 50.9% → 51.8%).
    public static let defaultMaxPasses = 5

    public init(engine: OCREngine, analyzer: any ReceiptAnalyzer, options: AnalysisOptions = AnalysisOptions(),
                maxExtraPasses: Int = ReceiptProcessor.defaultMaxPasses - 1, logger: Logger = Logger(label: "receipts.pipeline")) {
        self.engine = engine
        self.analyzer = analyzer
        self.options = options
        self.maxExtraPasses = max(0, maxExtraPasses)
        self.logger = logger
    }

    public func process(imageData: Data, displayPath: String) async throws -> ProcessedReceipt {
        let clock = ContinuousClock()
        let start = clock.now
        let ocr = try await engine.recognize(imageData: imageData, file: displayPath)
        let ocrDone = clock.now
        var analysis = try await analyze(ocr: ocr, imageData: imageData, displayPath: displayPath)
        let end = clock.now
        // How long this receipt took (OCR includes waiting for a free OCR thread).
        analysis.details.append(("timings", .object([
            ("ocrMs", .int(Self.milliseconds(ocrDone - start))),
            ("analysisMs", .int(Self.milliseconds(end - ocrDone))),
            ("totalMs", .int(Self.milliseconds(end - start))),
        ])))
        return ProcessedReceipt(ocr: ocr, analysis: analysis)
    }

    private static func milliseconds(_ d: Duration) -> Int {
        Int(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000)
    }

    /// Runs the analyzer on an OCR result of `imageData` (second passes read `imageData` again).
    public func analyze(ocr: OCRResult, imageData: Data, displayPath: String) async throws -> ReceiptAnalysis {
        let input = AnalysisInput(
            source: displayPath, ocr: ocr,
            reread: { [engine, budget = PassBudget(maxExtraPasses)] pass in
                guard budget.take() else {
                    throw ReceiptError(.ocrFailed, file: displayPath, "no more OCR passes allowed for this receipt")
                }
                return try await engine.recognize(imageData: imageData, file: displayPath, pass: pass)
            },
            imageData: imageData,
            dictionaryWords: { [engine] words in try await engine.dictionaryWords(among: words) })
        do {
            return try await analyzer.analyze(input, options: options)
        } catch let error as ReceiptError {
            throw error.naming(displayPath)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw ReceiptError(.analysisFailed, file: displayPath, "\(error)")
        }
    }

    /// Reads the file at `url` and processes it.
    public func process(imageAt url: URL, displayPath: String? = nil) async throws -> ProcessedReceipt {
        let name = displayPath ?? url.path
        return try await process(imageData: try ReceiptFile.read(url, file: name), displayPath: name)
    }
}

/// Counts the extra OCR passes of one receipt.
private final class PassBudget: Sendable {
    private let remaining: Mutex<Int>

    init(_ passes: Int) { remaining = Mutex(passes) }

    func take() -> Bool {
        remaining.withLock { left in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
    }
}
