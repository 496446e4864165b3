import Foundation
import ReceiptModel

/// Every learned field's candidates for one receipt.
package struct FieldCandidates {
    package var total: [Candidate]
    package var date: [Candidate]
    package var vendor: [Candidate]
    package var tax: [Candidate]
    /// The line items' candidates, a printed row's amounts sharing its `row`.
    package var items: [ItemCandidate]
    /// The readings' rows, whose subtotals and totals tell the items from their sum by kind.
    package var itemRows: [AmountLine] = []

    /// The lists of the fields that have one winner a receipt, in `LearnedField`'s order.
    package var all: [[Candidate]] { [total, date, vendor, tax] }

    /// One reading's candidates.
    /// - Parameters:
    ///   - totals: the total's candidates, proposed earlier for the checks' plan.
    ///   - tax: the rules' tax, whose features relate it to the reading's rules' total.
    ///   - items: whether to propose the reading's line items (not when two readings' are proposed
    ///     together, `CandidateProposer.items(tesseract:neural:)`).
    package init(_ reading: Reading, totals: [Candidate], checks: Checks, tax: TaxFinding?, options: AnalysisOptions,
                 items: Bool = true) {
        total = totals
        date = CandidateProposer.dates(reading, check: checks.date, options: options)
        vendor = CandidateProposer.vendor(reading, check: checks.vendor)
        self.tax = CandidateProposer.taxes(reading, finding: tax, total: reading.total?.value,
                                           currency: reading.currency?.code ?? options.defaultCurrency)
        self.items = items ? CandidateProposer.items(reading) : []
        itemRows = reading.rows
    }

    /// Tesseract's and the neural reader's candidates as one list a field
    /// (`CandidateProposer.combined`); `totals` are the total's, combined earlier for the checks' plan.
    package init(tesseract: FieldCandidates, neural: FieldCandidates, totals: [Candidate], items: [ItemCandidate]) {
        total = totals
        self.items = items
        itemRows = tesseract.itemRows + neural.itemRows
        date = CandidateProposer.combined(.date, tesseract: tesseract.date, neural: neural.date)
        vendor = CandidateProposer.combined(.vendor, tesseract: tesseract.vendor, neural: neural.vendor)
        tax = CandidateProposer.combined(.tax, tesseract: tesseract.tax, neural: neural.tax)
    }
}

/// The values the analysis gives for the total, the date and the tax, with every field's
/// confidence: the rules' own (`rules`), or the learned model's choice among the candidates and
/// its calibrated probabilities (`learned`).
package struct Choice {
    package var vendor: String?
    package var total: Decimal?
    package var date: CalendarDate?
    package var tax: Decimal?
    /// The line items, in reading order.
    package var lineItems: [LineItem]
    /// Every field's confidence (its `needsReview` is decided by `ReviewDecision`).
    package var confidence: FieldConfidence
    /// The fields whose chosen value the model finds less likely right than its review threshold
    /// (the total, the date, and the tax where the receipt prints one); nil when the rules decided.
    package var flaggedByModel: [String]?
    /// The rules' tax sums a VAT table of several rates (`TaxFinding.ofSeveralRates`).
    package var taxOfSeveralRates = false

    /// The rules' picks and confidences.
    package static func rules(_ reading: Reading, tax: TaxFinding?, currencyConfidence: Double, categoryConfidence: Double) -> Choice {
        Choice(vendor: reading.vendor?.name, total: reading.total?.value, date: reading.date?.date, tax: tax?.value,
               lineItems: reading.lineItems,
               confidence: FieldConfidence(vendor: reading.vendor?.confidence ?? 0, date: reading.date?.confidence ?? 0,
                                           total: reading.total?.confidence ?? 0, tax: tax?.confidence ?? 0,
                                           currency: currencyConfidence, category: categoryConfidence),
               flaggedByModel: nil, taxOfSeveralRates: tax?.ofSeveralRates ?? false)
    }

    /// The learned model's choice of total, date, vendor and tax among the candidates, and its
    /// calibrated probabilities for them, starting from the rules' `choice` (kept for a
    /// field with no candidates).
    package static func learned(_ model: LearnedModel, candidates: FieldCandidates, from rules: Choice) -> Choice {
        var choice = rules
        var flagged: [String] = []
        var taxProbability: Double?
        for list in candidates.all {
            guard let field = list.first?.field, let (best, p) = model.choose(list) else { continue }
            switch field {
            case .total:
                choice.total = Decimal(string: best.value)
                choice.confidence.total = p
                if model.flagsReview(field, probability: p) || model.contradicts(best) { flagged.append("total") }
            case .date:
                choice.date = CalendarDate(iso: best.value)
                choice.confidence.date = p
                if model.flagsReview(field, probability: p) { flagged.append("date") }
            case .vendor:
                choice.vendor = best.value
                choice.confidence.vendor = p
                if p < ReviewDecision.vendorBelow { flagged.append("vendor") }
            case .tax:
                // A VAT table of several rates: the model chooses one amount, one rate's share at
                // best; the rules' sum of the table's rows is the tax.
                if rules.taxOfSeveralRates {
                    taxProbability = rules.confidence.tax
                    continue
                }
                // Where the rules found a tax, the model chooses among the amounts; where they found
                // none, the receipt may print none (a parking ticket, a vehicle-tax notice), so the
                // model's amount is taken only when more likely right than its floor, or when the
                // receipt says it is a tax (`LearnedModel.showsTax`). An amount not less than the
                // chosen total is not its tax (the model can pick the total itself where the receipt
                // prints no tax): no tax then.
                let amount = Decimal(string: best.value)
                if let amount, let total = choice.total, amount >= total {
                    if choice.tax.map({ $0 >= total }) ?? false { choice.tax = nil }
                } else if choice.tax != nil || p >= model.taxFloor || model.showsTax(best) {
                    choice.tax = amount
                    choice.confidence.tax = p
                    taxProbability = p
                    if model.contradicts(best) { flagged.append("tax") }
                }
            case .item:
                break
            }
        }
        if let items = model.chooseItems(candidates.items) {
            // The items summed again by kind (parts, labour) under them are no items.
            choice.lineItems = LineItemParser.withoutBreakdown(items.map(\.item.item), candidates.itemRows)
        }
        // A receipt that prints a tax is left alone only when its tax is as sure as its threshold:
        // none taken where one is printed, or one less likely right, asks for a look.
        if model.reviewsTax, choice.tax != nil || candidates.tax.contains(where: model.showsTax) {
            if model.flagsReview(.tax, probability: choice.tax == nil ? 0 : taxProbability ?? 0) { flagged.append("tax") }
        }
        choice.flaggedByModel = flagged
        return choice
    }
}
