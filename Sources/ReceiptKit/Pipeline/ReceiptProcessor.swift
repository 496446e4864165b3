import Foundation
import Logging

/// The real `ReceiptProcessing`: an OCR session per receipt (the image decoded once), its first
/// pass, then an analyzer that may ask the session for further passes within the budget.
public struct ReceiptProcessor: ReceiptProcessing {
    public let engine: OCREngine
    public var ocrEngine: OCREngine? { engine }
    public let analyzer: any ReceiptAnalyzer
    public let options: AnalysisOptions
    public let logger: Logger
    /// OCR passes per receipt, the first included (`OCRSession.defaultMaxPasses` by default).
    public let maxPasses: Int

    /// The engine must be running (`OCREngine.run()` in the same `ServiceGroup`, or `withRunning`).
    public init(engine: OCREngine, analyzer: any ReceiptAnalyzer, options: AnalysisOptions = AnalysisOptions(),
                maxPasses: Int = OCRSession.defaultMaxPasses, logger: Logger) {
        self.engine = engine
        self.analyzer = analyzer
        self.options = options
        self.maxPasses = max(1, maxPasses)
        self.logger = logger
    }

    public func process(imageData: Data, displayPath: String) async throws -> ProcessedReceipt {
        let clock = ContinuousClock()
        let start = clock.now
        let session = engine.session(imageData: imageData, file: displayPath, maxPasses: maxPasses)
        let ocr = try await session.firstReading()
        let ocrDone = clock.now
        var analysis = try await analyze(AnalysisInput(source: displayPath, ocr: ocr, reader: session, imageData: imageData))
        let end = clock.now
        // How long this receipt took (OCR includes waiting for a free OCR thread; further passes
        // count as analysis).
        analysis.timings = ReceiptTimings(ocrMs: Self.milliseconds(ocrDone - start), analysisMs: Self.milliseconds(end - ocrDone),
                                          totalMs: Self.milliseconds(end - start))
        return ProcessedReceipt(ocr: ocr, analysis: analysis)
    }

    private static func milliseconds(_ d: Duration) -> Int {
        Int(d / .milliseconds(1))
    }

    /// Runs the analyzer on a first pass read earlier (`ocr`, e.g. from a cache); further passes
    /// read `imageData` through a new session whose first pass counts as taken.
    public func analyze(ocr: OCRResult, imageData: Data, displayPath: String) async throws -> ReceiptAnalysis {
        let session = engine.session(imageData: imageData, file: displayPath, maxPasses: maxPasses)
        session.countFirstPass()
        return try await analyze(AnalysisInput(source: displayPath, ocr: ocr, reader: session, imageData: imageData))
    }

    private func analyze(_ input: AnalysisInput) async throws -> ReceiptAnalysis {
        do {
            return try await analyzer.analyze(input, options: options)
        } catch let error as CancellationError {
            throw error
        } catch let error as ReceiptError {
            throw error.naming(input.source)
        } catch {
            throw ReceiptError(.analysisFailed, file: input.source, "\(error)")
        }
    }

    /// Reads the file at `url` and processes it.
    public func process(imageAt url: URL, displayPath: String? = nil) async throws -> ProcessedReceipt {
        let name = displayPath ?? url.path
        return try await process(imageData: try ReceiptFile.read(url, file: name), displayPath: name)
    }
}
