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

    /// The learned models (one for each choice of readers) that choose among the rules'
    /// candidates and give calibrated confidences; nil keeps the rules' own picks and confidences
    /// (`receipts eval --rules-only`, for comparison).
    package var models: LearnedModels? = LearnedModels.shipped

    /// Propose every field's candidates even without models (`receipts eval --dump-candidates`:
    /// what `make train` learns from, whether or not the shipped parameters fit this build's
    /// features).
    package var proposesCandidates = false

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
        var input = input
        input.neural = input.neural.map(NeuralSymbols.mend)
        if input.ocrIsNeural { input.ocr = NeuralSymbols.mend(input.ocr) }
        let model = models?[input.readers]
        var reading = try await FirstReading(rereadPasses: rereadPasses, dateRereadPasses: dateRereadPasses)
            .read(input, options: options)
        // The neural reader's reading, beside Tesseract's: weighed with it, not read again.
        let neural = input.neural.map { Reading(ocr: $0, options: options) }
        // What identifies the shop, and what the memory of shops recalls of it (Identity/).
        let shop = ShopReading(reading, neural: neural, options: options)
        let recall = try await ShopMemoryStage.recall(input.memory, keys: ShopMemoryStage.lookupKeys(shop.keys(printedName: nil), readings: shop.readings))
        let memory = MemoryContext(recall: recall, readings: shop.readings)
        // The checks read no amounts: these candidates serve both the plan and the choice. (They are
        // proposed whenever models are in use, also for readers no model is shipped for yet: what
        // `make train` learns from.)
        let propose = models != nil || proposesCandidates
        let totals = propose ? CandidateProposer.withMemory(Self.totals(reading, neural), .total, memory, readers: input.readers) : []
        var checks = Checks()
        if let reader = input.reader {
            if CheckPlan.wanted(options.checks, model: model, totals: totals) {
                (reading.date, checks.date) = try await DateCheck(reader: reader, options: options).run(reading)
                (reading.vendor, checks.vendor) = try await VendorCheck(reader: reader).run(reading)
            }
            reading.vendor = await NameMending.mend(reading.vendor, with: reader)
        }
        var analysis = result(reading, neural: neural, totals: totals, checks: checks, model: model,
                              propose: propose, options: options, shop: shop, memory: memory, readers: input.readers)
        analysis.ocrPasses = input.reader?.passesRead
        return analysis
    }

    /// The rules' items of two readings, with no model: the reading whose items add up to a
    /// subtotal or total, else Tesseract's (the neural reader's when Tesseract reads none).
    static func rulesItems(_ reading: Reading, _ neural: Reading) -> [LineItem] {
        func sums(_ r: Reading) -> Bool {
            let items = r.lineItems.compactMap(\.amount)
            return !items.isEmpty && ItemContext.targets(r.rows).contains(items.reduce(0, +))
        }
        if !sums(reading), sums(neural) || reading.lineItems.isEmpty { return neural.lineItems }
        return reading.lineItems
    }

    /// The total's candidates of one reading, or of both readings together.
    private static func totals(_ reading: Reading, _ neural: Reading?) -> [Candidate] {
        guard let neural else { return CandidateProposer.totals(reading) }
        return CandidateProposer.combined(.total, tesseract: CandidateProposer.totals(reading), neural: CandidateProposer.totals(neural))
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
        let propose = models != nil || proposesCandidates
        let totals = propose ? CandidateProposer.withMemory(CandidateProposer.totals(reading), .total, .none, readers: .tesseract) : []
        return result(reading, neural: nil, totals: totals, checks: Checks(), model: models?[.tesseract], propose: propose,
                      options: options, shop: ShopReading(reading, neural: nil, options: options),
                      memory: MemoryContext(recall: nil, readings: [reading]), readers: .tesseract)
    }

    /// The last stages: the tax, currency and category, the candidates and the choice among them,
    /// the review decision, and the analysis. `reading` is the first reading (Tesseract's, or the
    /// neural reader's alone); `neural` the neural reader's beside Tesseract's.
    private func result(_ reading: Reading, neural: Reading?, totals: [Candidate], checks: Checks, model: LearnedModel?,
                        propose: Bool, options: AnalysisOptions, shop: ShopReading, memory: MemoryContext,
                        readers: ReaderChoice) -> ReceiptAnalysis {
        func tax(_ reading: Reading) -> TaxFinding? {
            TaxFinder.find(reading.rows, total: reading.total?.value)
                ?? reading.otherRows.lazy.compactMap { TaxFinder.find($0, total: reading.total?.value) }.first
        }
        let rulesTax = tax(reading)
        let currencyFinding = reading.currency ?? neural?.currency
        var currency = (code: currencyFinding?.code, confidence: currencyFinding?.confidence ?? 0)
        if currency.code == nil, let fallback = options.defaultCurrency { currency = (fallback, 0.3) }
        let rulesVendor = reading.vendor ?? neural?.vendor
        let category = CategoryClassifier.forTaxonomy(options.taxonomy).classify(reading.document, vendor: rulesVendor?.name)
        var choice = Choice.rules(reading, tax: rulesTax, currencyConfidence: currency.confidence, categoryConfidence: category.confidence)
        if let neural { choice.lineItems = Self.rulesItems(reading, neural) }
        // Proposed only when models are in use (the rows' dates cost a date search per row).
        var candidates: FieldCandidates?
        if propose {
            var proposed = FieldCandidates(reading, totals: totals, checks: checks, tax: rulesTax, options: options,
                                           items: neural == nil)
            if let neural {
                let second = FieldCandidates(neural, totals: [], checks: Checks(), tax: tax(neural), options: options, items: false)
                proposed = FieldCandidates(tesseract: proposed, neural: second, totals: totals,
                                           items: CandidateProposer.items(tesseract: reading, neural: neural))
            }
            // The memory of shops' block, and its shops among the vendors (the totals have theirs).
            proposed.date = CandidateProposer.withMemory(proposed.date, .date, memory, readers: readers)
            proposed.vendor = CandidateProposer.withMemory(proposed.vendor, .vendor, memory, readers: readers)
            proposed.tax = CandidateProposer.withMemory(proposed.tax, .tax, memory, readers: readers)
            candidates = proposed
        }
        if let model, let candidates {
            choice = .learned(model, candidates: candidates, from: choice)
        } else if let neural {
            // No model: the rules' reading of Tesseract, its gaps filled from the neural reader's.
            choice.vendor = choice.vendor ?? neural.vendor?.name
            choice.total = choice.total ?? neural.total?.value
            choice.date = choice.date ?? neural.date?.date
        }
        choice.lineItems = PartPayment.items(choice.lineItems, total: choice.total, rows: reading.rows)
        // A strong match (a tax number, phone or web address pointing at one shop alone; without a
        // model, two other keys too) gives the person's own naming exactly (issue 57): the chooser,
        // not yet refitted on the memory's features, kept a reading over a recalled name in all 5 of
        // the SROIE replay's misses. Two weaker keys (an address, a header) are shared by shops of one
        // building or company: with a model they stay the chooser's evidence.
        if let name = ShopMemoryStage.rulesVendor(memory.recall),
           model == nil || candidates == nil || memory.recall?.best?.deciding.contains(where: \.isStrong) == true {
            choice.vendor = name
            choice.confidence.vendor = max(choice.confidence.vendor, 0.95)
        }
        var confidence = choice.confidence
        let vendor = choice.vendor
        let finalCategory = vendor == rulesVendor?.name ? category
            : CategoryClassifier.forTaxonomy(options.taxonomy).classify(reading.document, vendor: vendor)
        confidence.category = finalCategory.confidence
        let review = ReviewDecision.fields(choice, currency: currency.code, categoryConfidence: finalCategory.confidence)
        var analysis = ReceiptAnalysis(vendor: vendor, date: choice.date, total: choice.total, tax: choice.tax,
                                       currency: currency.code, category: finalCategory.name,
                                       lineItems: choice.lineItems,
                                       confidence: confidence, analyzer: name)
        analysis.flag(review)
        analysis.candidates = candidates.map { Array($0.all.joined()) + $0.items.map(\.candidate) } ?? []
        // What identifies the shop, how it prints its fields, and what its memory settles.
        let printed = ShopMemoryStage.chosenShop(vendor, memory.recall) == nil ? vendor : rulesVendor?.name
        analysis.identity = shop.identity
        analysis.shopKeys = shop.keys(printedName: printed)
        analysis.layout = memory.layout(totals: candidates?.total ?? [], chosenTotal: choice.total, dates: candidates?.date ?? [])
        ShopMemoryStage.settle(&analysis, recall: memory.recall, taxes: candidates?.tax ?? [], currencyRead: currencyFinding != nil)
        return analysis
    }
}
