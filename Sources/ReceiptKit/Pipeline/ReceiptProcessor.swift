import Foundation
import Logging

/// The real `ReceiptProcessing`: an OCR session per receipt (the image decoded once), its first
/// reading (Tesseract's first pass and, with `readers` `.both`, the neural reader's reading of the
/// same pixels; or the neural reader's alone), then an analyzer that may ask the session for
/// further passes within the budget.
public struct ReceiptProcessor: ReceiptProcessing {
    public let engine: OCREngine
    public var ocrEngine: OCREngine? { engine }
    public let analyzer: any ReceiptAnalyzer
    public let options: AnalysisOptions
    public let logger: Logger
    /// OCR passes per receipt, the first included (`defaultMaxPasses(for: readers)` unless given).
    public var maxPasses: Int { max(1, givenMaxPasses ?? Self.defaultMaxPasses(for: readers)) }
    /// Which readers read each receipt; the neural reader needs an engine made with its networks.
    public let readers: ReaderChoice
    /// The budget as given (nil: the readers' default).
    private let givenMaxPasses: Int?
    /// The memory of shops of the receipt being read (`remembering`): nil reads it from scratch.
    public private(set) var memory: (any ShopMemory)?

    /// The engine must be running (`OCREngine.run()` in the same `ServiceGroup`, or `withRunning`).
    public init(engine: OCREngine, analyzer: any ReceiptAnalyzer, options: AnalysisOptions = AnalysisOptions(),
                maxPasses: Int? = nil, readers: ReaderChoice = .tesseract, logger: Logger) {
        self.engine = engine
        self.analyzer = analyzer
        self.options = options
        self.givenMaxPasses = maxPasses
        self.readers = readers
        self.logger = logger
    }

    /// The OCR passes a receipt gets by default: Tesseract alone reads the page again where the
    /// total or the date is unclear and the date's and the vendor's rows closer
    /// (`OCRSession.defaultMaxPasses`); with the neural reader, each reader reads the page once:
    /// the other reader's reading is the second opinion, at a fraction of the rereads' cost, and
    /// the learned models for `.both` and `.neural` are fitted on such first readings
    /// (docs/learned-model.md).
    public static func defaultMaxPasses(for readers: ReaderChoice) -> Int {
        readers == .tesseract ? OCRSession.defaultMaxPasses : 1
    }

    /// A copy reading with `readers` (and their default budget, unless one was given).
    public func reading(with readers: ReaderChoice) -> ReceiptProcessor {
        var copy = ReceiptProcessor(engine: engine, analyzer: analyzer, options: options, maxPasses: givenMaxPasses, readers: readers, logger: logger)
        copy.memory = memory
        return copy
    }

    /// A copy that reads with `memory`, the memory of shops of the receipt's book.
    public func withMemory(_ memory: (any ShopMemory)?) -> ReceiptProcessor {
        var copy = self
        copy.memory = memory
        return copy
    }

    public func remembering(_ memory: (any ShopMemory)?) -> any ReceiptProcessing { withMemory(memory) }

    public func process(imageData: Data, displayPath: String) async throws -> ProcessedReceipt {
        // An e-mail's body (ReceiptMail), read without OCR: ReceiptProcessor+EReceipt.swift.
        if let eReceipt = EReceipt(data: imageData) { return try await process(eReceipt, displayPath: displayPath) }
        let clock = ContinuousClock()
        let start = clock.now
        let session = engine.session(imageData: imageData, file: displayPath, maxPasses: maxPasses)
        let (ocr, neural) = try await firstReadings(session)
        let ocrDone = clock.now
        var analysis = try await analyze(input(ocr: ocr, neural: neural, session: session, imageData: imageData, displayPath: displayPath))
        let end = clock.now
        // How long this receipt took (OCR includes waiting for a free OCR thread; further passes
        // count as analysis).
        analysis.timings = ReceiptTimings(ocrMs: Self.milliseconds(ocrDone - start), analysisMs: Self.milliseconds(end - ocrDone),
                                          totalMs: Self.milliseconds(end - start))
        if let turn = session.pageTurn {
            // Read turned: the boxes are the turned page's, not the picture's; no sources to show on it.
            analysis.details.append(("pageTurn", .number("\(turn.rawValue)")))
        } else {
            // The words each field was read from, for the review page (`analysis.sources`).
            analysis.details.append(("sources", FieldSources.locate(analysis, in: ocr).json))
        }
        return ProcessedReceipt(ocr: ocr, analysis: analysis)
    }

    private static func milliseconds(_ d: Duration) -> Int {
        Int(d / .milliseconds(1))
    }

    /// The first readings of a receipt as `readers` asks: Tesseract's first pass, and the neural
    /// reader's beside it; or the neural reader's alone. A PDF's text layer, when it has one, is
    /// the reading whatever the readers (exact: nothing to read or weigh it against). A
    /// neural reading that fails beside Tesseract's leaves Tesseract's alone (and is logged); an
    /// image neither can read fails the receipt.
    public func firstReadings(_ session: OCRSession) async throws -> (ocr: OCRResult, neural: OCRResult?) {
        switch readers {
        case .tesseract:
            return (try await session.firstReading(), nil)
        case .neural:
            if let text = try await session.textLayerReading() { return (text, nil) }
            let reading = try await session.neuralReading()
            return (try await upright(session, reading) ?? reading, nil)
        case .both:
            // A PDF's text layer is exact: nothing to weigh it against. Its first reading comes first,
            // and the neural reader reads only a PDF without one.
            if session.isPDF {
                let ocr = try await session.firstReading()
                guard !session.readFromTextLayer else { return (ocr, nil) }
                return (ocr, try neuralOrNil(await neuralAttempt(session), session))
            }
            // An image: the two readers read it side by side, each on an OCR thread of its own when
            // one is free (a lone receipt uses two cores; a full queue keeps one a receipt).
            async let neural = neuralAttempt(session)
            let ocr = try await session.firstReading()
            let reading = try neuralOrNil(await neural, session)
            // A page stored turned: both readers read it again, upright (OCRSession.turnPage).
            if let reading, let turned = try await upright(session, reading) {
                return (try await session.firstReading(), turned)
            }
            return (ocr, reading)
        }
    }

    private func neuralAttempt(_ session: OCRSession) async -> Result<OCRResult, any Error> {
        do { return .success(try await session.neuralReading()) } catch { return .failure(error) }
    }

    /// A neural reading beside Tesseract's, or nil (and a warning) when it failed: Tesseract's
    /// reading is then analyzed alone. Cancellation is not a failure of the reader: it is thrown.
    private func neuralOrNil(_ attempt: Result<OCRResult, any Error>, _ session: OCRSession) throws -> OCRResult? {
        switch attempt {
        case .success(let reading):
            return reading
        case .failure(let error):
            if error is CancellationError { throw error }
            logger.warning("Neural reading failed; Tesseract's reading alone is analyzed",
                           metadata: ["receipt.file": "\(session.file)", "error": "\(error)"])
            return nil
        }
    }

    /// Runs the analyzer on first readings read earlier (`ocr` and `neural`, e.g. from a cache, as
    /// `readers` would read them); further passes read `imageData` through a new session whose
    /// first pass counts as taken.
    /// `turn`: how the first readings' page was turned (`OCRSession.pageTurn`); further passes read it so turned.
    public func analyze(ocr: OCRResult, neural: OCRResult? = nil, imageData: Data, displayPath: String,
                        turn: PageTurn? = nil) async throws -> ReceiptAnalysis {
        let session = engine.session(imageData: imageData, file: displayPath, maxPasses: maxPasses)
        if let turn { try session.turnPage(turn) }
        if readers != .neural { session.countFirstPass() }
        return try await analyze(input(ocr: ocr, neural: neural, session: session, imageData: imageData, displayPath: displayPath))
    }

    private func input(ocr: OCRResult, neural: OCRResult?, session: OCRSession, imageData: Data, displayPath: String) -> AnalysisInput {
        // The neural reader alone reads the page once: Tesseract's further passes are not its to ask.
        var input = AnalysisInput(source: displayPath, ocr: ocr, neural: neural, ocrIsNeural: readers == .neural,
                                  reader: readers == .neural ? nil : session, imageData: imageData)
        input.memory = memory
        return input
    }

    /// The analyzer's answer for `input`; its errors name the receipt (`input.source`).
    func analyze(_ input: AnalysisInput) async throws -> ReceiptAnalysis {
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
