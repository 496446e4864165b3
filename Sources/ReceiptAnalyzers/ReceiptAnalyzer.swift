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
    public var ocr: OCRResult
    /// Reads the image again with other OCR settings (a second, targeted pass). Nil when the
    /// image is not available.
    public var reread: (@Sendable (OCRPass) async throws -> OCRResult)?
    /// The image bytes, for analyzers that send the image itself.
    public var imageData: Data?
    /// The words among those given that the OCR language's dictionary holds, for mending letters
    /// OCR misread (`BAKERLES` → `BAKERIES`). Nil when no dictionary is at hand.
    public var dictionaryWords: (@Sendable ([String]) async throws -> Set<String>)?

    public init(source: String, ocr: OCRResult, reread: (@Sendable (OCRPass) async throws -> OCRResult)? = nil,
                imageData: Data? = nil, dictionaryWords: (@Sendable ([String]) async throws -> Set<String>)? = nil) {
        self.source = source
        self.ocr = ocr
        self.reread = reread
        self.imageData = imageData
        self.dictionaryWords = dictionaryWords
    }
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

    public init(taxonomy: Taxonomy = .default, defaultCurrency: String? = nil, dateOrder: DateOrder = .dayFirst,
                today: CalendarDate? = nil) {
        self.taxonomy = taxonomy
        self.defaultCurrency = defaultCurrency
        self.dateOrder = dateOrder
        self.today = today
    }
}

