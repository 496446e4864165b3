import Foundation
import ReceiptModel

/// The default analyzer: local rules over the OCR text and a learned model choosing among their
/// candidates, offline and fast (`receipts eval … --time-analyzer` times it).
///
/// The analysis is a short sequence of stages, each in its own file:
/// 1. `FirstReading`: the first pass read by the rules, and further whole-page passes where the
///    total or the date wants support;
/// 2. the total's candidates (`CandidateProposer.totals`), which `CheckPlan` weighs with the learned
///    model to decide whether the date's and the vendor's rows are read again;
/// 3. `DateCheck` and `VendorCheck`: those close-ups, whose agreement the model weighs, then
///    `NameMending` of the vendor's misread letters;
/// 4. every field's candidates (`FieldCandidates`) and the learned choice (`Choice`);
/// 5. `ReviewDecision` and the `ReceiptAnalysis` (`result`).
public struct HeuristicAnalyzer: ReceiptAnalyzer {
    public let name = "heuristic"
    /// Second passes tried in order while the total stays unconfirmed.
    public var rereadPasses: [OCRPass]

    /// One whole-page pass at 0.8 of the first pass's scale: OCR errors change with scale, and a
    /// smaller image costs about two thirds of the first pass (see docs/ocr.md).
    public static let defaultRereadPasses: [OCRPass] = [
        OCRPass(pageSegmentationMode: 6, scale: 0.8),
    ]

    /// Passes tried, in order, while the date alone is missing (the total is labelled or
    /// cross-checked).
    public var dateRereadPasses: [OCRPass]

    /// One whole-page pass at 0.8 scale after background normalization and binarization: it
    /// reads dates the gray page misreads, but misreads more totals (see docs/ocr.md).
    public static let defaultDateRereadPasses: [OCRPass] = [
        OCRPass(pageSegmentationMode: 6, scale: 0.8, binarize: true),
    ]

    /// The learned model that chooses among the rules' candidates and gives calibrated confidences;
    /// nil keeps the rules' own picks and confidences (`receipts eval --rules-only`, for comparison).
    package var model: LearnedModel? = LearnedModel.shipped

    /// The scale of the vendor's and the date's third reading, when the first two differ (chosen
    /// on `sroie` and `wildreceipt`, measured on `sroie-2` and `wildreceipt-2`: docs/experiments.md).
    package static let thirdReadingScale = 1.5

    public init(rereadPasses: [OCRPass] = HeuristicAnalyzer.defaultRereadPasses,
                dateRereadPasses: [OCRPass] = HeuristicAnalyzer.defaultDateRereadPasses) {
        self.rereadPasses = rereadPasses
        self.dateRereadPasses = dateRereadPasses
    }

    public func analyze(_ input: AnalysisInput, options: AnalysisOptions) async throws -> ReceiptAnalysis {
        let options = options.resolvingToday()
        var reading = try await FirstReading(rereadPasses: rereadPasses, dateRereadPasses: dateRereadPasses)
            .read(input, options: options)
        // The checks read no amounts: these candidates serve both the plan and the choice.
        let totals = model != nil ? CandidateProposer.totals(reading) : []
        var checks = Checks()
        if let reader = input.reader {
            if CheckPlan.wanted(options.checks, model: model, totals: totals) {
                (reading.date, checks.date) = try await DateCheck(reader: reader, options: options).run(reading)
                (reading.vendor, checks.vendor) = try await VendorCheck(reader: reader).run(reading)
            }
            reading.vendor = await NameMending.mend(reading.vendor, with: reader)
        }
        var analysis = result(reading, totals: totals, checks: checks, options: options)
        analysis.ocrPasses = input.reader?.passesRead
        return analysis
    }

    /// Analyzes one OCR result with no further passes (synchronous; for benchmarks and tools).
    public func analyze(ocr: OCRResult, options: AnalysisOptions = AnalysisOptions()) -> ReceiptAnalysis {
        analyze(Reading(ocr: ocr, options: options), options: options)
    }

    /// Analyzes plain receipt text, one printed row per line.
    public func analyze(text: String, options: AnalysisOptions = AnalysisOptions()) -> ReceiptAnalysis {
        analyze(Reading(document: ReceiptDocument(text: text), options: options), options: options)
    }

    private func analyze(_ reading: Reading, options: AnalysisOptions) -> ReceiptAnalysis {
        result(reading, totals: model != nil ? CandidateProposer.totals(reading) : [], checks: Checks(), options: options)
    }

    /// The last stages: the tax, currency and category, the candidates and the choice among them,
    /// the review decision, and the analysis.
    private func result(_ reading: Reading, totals: [Candidate], checks: Checks, options: AnalysisOptions) -> ReceiptAnalysis {
        let tax = TaxFinder.find(reading.rows, total: reading.total?.value)
            ?? reading.otherRows.lazy.compactMap { TaxFinder.find($0, total: reading.total?.value) }.first
        let category = CategoryClassifier.forTaxonomy(options.taxonomy).classify(reading.document, vendor: reading.vendor?.name)
        var currency = (code: reading.currency?.code, confidence: reading.currency?.confidence ?? 0)
        if currency.code == nil, let fallback = options.defaultCurrency { currency = (fallback, 0.3) }
        var choice = Choice.rules(reading, tax: tax, currencyConfidence: currency.confidence, categoryConfidence: category.confidence)
        // Proposed only for the model (the rows' dates cost a date search per row).
        let candidates = model.map { _ in FieldCandidates(reading, totals: totals, checks: checks, tax: tax, options: options) }
        if let model, let candidates { choice = .learned(model, candidates: candidates, from: choice) }
        var confidence = choice.confidence
        confidence.needsReview = ReviewDecision.needsReview(choice, vendor: reading.vendor)
        var analysis = ReceiptAnalysis(vendor: reading.vendor?.name, date: choice.date, total: choice.total, tax: choice.tax,
                                       currency: currency.code, category: category.name, lineItems: reading.lineItems,
                                       confidence: confidence, analyzer: name)
        analysis.candidates = candidates.map { Array($0.all.joined()) } ?? []
        return analysis
    }
}
