import Foundation
import ReceiptModel

/// Turns what OCR read into the `analysis` of a receipt.
///
/// Implementations: `HeuristicAnalyzer` (local, offline) and the remote analyzers. An analyzer
/// throws `ReceiptError` when it cannot produce an analysis at all; a receipt where some fields
/// were not found is not an error (those fields are nil and `confidence.needsReview` is set).
public protocol ReceiptAnalyzer: Sendable {
    /// Short name recorded in results (`heuristic`, `gemini`, …).
    var name: String { get }
    func analyze(_ input: AnalysisInput, options: AnalysisOptions) async throws -> ReceiptAnalysis
}

/// Everything an analyzer gets for one receipt.
public struct AnalysisInput: Sendable {
    /// The file the receipt came from, for error messages and logs (may be a display name).
    public var source: String
    /// The first reading: Tesseract's first pass, or the neural reader's reading when it reads
    /// alone (`readers == .neural`).
    public var ocr: OCRResult
    /// The neural reader's reading of the page beside Tesseract's (`readers == .both`).
    public var neural: OCRResult?
    /// Reads the image again (further, targeted passes within the receipt's budget) and looks
    /// words up in the OCR language's dictionary. Nil when the image is not at hand.
    public var reader: (any PageReader)?
    /// The image bytes, for analyzers that send the image itself.
    public var imageData: Data?
    /// The memory of shops of the receipt's book (its owner's, group's or end user's): what the
    /// person confirmed of the shops they go back to. Nil: the receipt is read from scratch.
    public var memory: (any ShopMemory)?

    public init(source: String, ocr: OCRResult, neural: OCRResult? = nil, ocrIsNeural: Bool = false,
                reader: (any PageReader)? = nil, imageData: Data? = nil) {
        self.source = source
        self.ocr = ocr
        self.neural = neural
        self.ocrIsNeural = ocrIsNeural
        self.reader = reader
        self.imageData = imageData
    }

    /// `ocr` is the neural reader's reading (it read alone).
    public var ocrIsNeural: Bool

    /// Which readers' readings this input holds.
    public var readers: ReaderChoice {
        if neural != nil { return .both }
        return ocrIsNeural ? .neural : .tesseract
    }
}

/// Which receipts get their date's and vendor's rows read again, on their own, as a check: two
/// readings rarely make the same slip, so whether they agree is what the learned model weighs for
/// those fields' probabilities, and a third reading settles two that differ.
public enum ReadChecks: String, Sendable, CaseIterable {
    /// Receipts whose total the learned model is sure enough of for them to go unflagged; a receipt
    /// flagged for its total is looked at anyway (the default: on the labelled receipts, 2.41 OCR
    /// passes a receipt against 3.72 checking every one, for 2 points of vendors and 1 of dates).
    case unflagged
    /// Every receipt.
    case every
    /// None (fewer passes; the learned model then has no agreement to weigh and flags more).
    case none
}

public struct AnalysisOptions: Sendable {
    public var taxonomy: Taxonomy
    /// ISO 4217 code used when the receipt shows no currency; nil leaves `currency` nil then.
    public var defaultCurrency: String?
    /// How to read an ambiguous numeric date such as 03/04/2024 when the receipt gives no hint.
    public var dateOrder: DateOrder
    /// The date the analysis takes as today: a receipt's date is never later than next year's.
    /// Nil means the current date when the analysis runs.
    public var today: CalendarDate?
    /// Where the date's and the vendor's rows are read again as a check (see `ReadChecks`).
    public var checks: ReadChecks = .unflagged
    /// These options with `today` fixed (the current date when it is nil), so one analysis reads
    /// the clock once.
    package func resolvingToday() -> AnalysisOptions {
        var options = self
        if options.today == nil { options.today = .today() }
        return options
    }

    public init(taxonomy: Taxonomy = .default, defaultCurrency: String? = nil, dateOrder: DateOrder = .dayFirst,
                today: CalendarDate? = nil) {
        self.taxonomy = taxonomy
        self.defaultCurrency = defaultCurrency
        self.dateOrder = dateOrder
        self.today = today
    }
}

