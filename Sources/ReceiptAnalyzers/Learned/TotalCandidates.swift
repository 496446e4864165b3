import Foundation
import ReceiptModel

/// What a receipt's amounts say, shared by all its total candidates.
struct TotalContext {
    let rows: [AmountLine]
    /// The rules' total.
    let pick: TotalFinding?
    /// The totals further passes read.
    let otherTotals: [TotalFinding]
    let lastIndex: Int
    let medianHeight: Double
    /// The positive amounts, largest first.
    let descending: [Decimal]
    let subtotals: [Decimal], taxes: [Decimal], cash: [Decimal], change: [Decimal], payments: [Decimal]
    let itemsSum: Decimal?
    let rounded: [(total: Decimal, rounded: Decimal)]
    /// What the printed amounts say of each other (`ReceiptArithmetic`), and each candidate's
    /// support among them.
    let arithmetic: ReceiptArithmetic
    let bestSupport: Int
    /// What a letter's rows say its amounts are (`LetterAmounts`).
    let letter: LetterAmounts

    init(_ reading: Reading, positive: [Decimal]) {
        rows = reading.rows
        pick = reading.total
        otherTotals = reading.otherTotals
        let lines = reading.document.lines
        lastIndex = max(1, (lines.last?.index ?? 1))
        medianHeight = CandidateProposer.medianHeight(lines)
        descending = positive.sorted(by: >)
        subtotals = CandidateProposer.amounts(rows) { $0.role == .subtotal }
        taxes = CandidateProposer.amounts(rows) { $0.role == .tax }
        cash = CandidateProposer.amounts(rows) { $0.role == .cash }
        change = CandidateProposer.amounts(rows) { $0.role == .change }
        payments = CandidateProposer.amounts(rows, \.role.isPayment)
        let items = reading.lineItems.compactMap(\.amount)
        itemsSum = items.isEmpty ? nil : items.reduce(0, +)
        rounded = CandidateProposer.roundedPairs(rows, lines: lines)
        arithmetic = ReceiptArithmetic(reading)
        bestSupport = positive.map(arithmetic.support).max() ?? 0
        letter = LetterAmounts(reading)
    }
}

/// One amount as a candidate for the total.
struct TotalEvidence {
    let value: Decimal
    let receipt: TotalContext
    let place: Placement
    /// The strongest total label among the rows printing it (0–12).
    let strength: Int
    /// The tallest such row against the receipt's median row height.
    let height: Double

    init(_ value: Decimal, receipt: TotalContext) {
        self.value = value
        self.receipt = receipt
        place = Placement(value, rows: receipt.rows, lastIndex: receipt.lastIndex)
        strength = place.rows.map(\.role.totalStrength).max() ?? 0
        let heights = place.rows.compactMap { $0.line.box.map { Double($0.height) } }
        height = heights.max().map { receipt.medianHeight > 0 ? $0 / receipt.medianHeight : 1 } ?? 1
    }

    var isPick: Bool { receipt.pick?.value == value }
    /// 1 when a row printing it has a role passing `test`.
    func on(_ test: (AmountRole) -> Bool) -> Double { place.on { test($0.role) } }
}

extension CandidateProposer {
    static let totalFeatures: [Feature<TotalEvidence>] = [
        Feature("rulesPick") { $0.isPick.feature },
        Feature("rulesConfidence") { $0.isPick ? $0.receipt.pick?.confidence ?? 0 : 0 },
        Feature("rulesCrossChecked") { ($0.isPick && $0.receipt.pick?.crossChecked == true).feature },
        Feature("rulesLabelStrength") { $0.isPick ? Double($0.receipt.pick?.labelStrength ?? 0) / 12 : 0 },
        Feature("labelStrength") { Double($0.strength) / 12 },
        Feature("onTotalRow") { $0.on { $0.totalStrength > 0 } },
        Feature("onSubtotalRow") { $0.on { $0 == .subtotal } },
        Feature("onTaxRow") { $0.on { $0 == .tax } },
        Feature("onCashRow") { $0.on { $0 == .cash } },
        Feature("onCardRow") { $0.on { $0 == .card } },
        Feature("onChangeRow") { $0.on { $0 == .change } },
        Feature("onTipRow") { $0.on { $0 == .tip } },
        Feature("onDiscountRow") { $0.on { $0 == .discount } },
        Feature("onOtherRow") { $0.on { $0 == .other } },
        Feature("occurrences") { $0.place.occurrences },
        Feature("isLargest") { ($0.value == ($0.receipt.descending.first ?? 0)).feature },
        Feature("rankFromLargest") { e in
            let descending = e.receipt.descending
            return Double(descending.firstIndex(of: e.value) ?? descending.count) / Double(max(1, descending.count - 1))
        },
        Feature("fromBottom") { $0.place.fromBottom },
        Feature("fromTop") { $0.place.fromTop },
        Feature("subtotalPlusTax") { e in
            e.receipt.subtotals.contains { s in e.receipt.taxes.contains { t in t > 0 && s + t == e.value } }.feature
        },
        Feature("cashLessChange") { e in
            e.receipt.cash.contains { c in e.receipt.change.contains { ch in ch > 0 && c - ch == e.value } }.feature
        },
        Feature("itemsSum") { ($0.receipt.itemsSum == $0.value).feature },
        Feature("currencyMark") { $0.place.tokens.contains { $0.currencyMark != nil }.feature },
        Feature("repaired") { (!$0.place.tokens.isEmpty && $0.place.tokens.allSatisfy(\.repaired)).feature },
        Feature("relativeHeight") { min(3, $0.height) },
        Feature("readConfidence") { $0.place.readConfidence },
        Feature("otherPassAgrees") { e in e.receipt.otherTotals.contains { $0.value == e.value }.feature },
        Feature("magnitude") { log10(1 + NSDecimalNumber(decimal: $0.value).doubleValue) / 4 },
        Feature("onlyOnPaymentRows") { (!$0.place.rows.isEmpty && $0.place.rows.allSatisfy(\.role.isPayment)).feature },
        Feature("largerThanPayment") { e in e.receipt.payments.contains { $0 > 0 && e.value > $0 }.feature },
        // How many amounts compete: a labelled amount on a short ticket has few rivals.
        Feature("amounts") { log1p(Double($0.receipt.descending.count)) },
        Feature("roundedAfterTotal") { e in e.receipt.rounded.contains { $0.rounded == e.value }.feature },
        Feature("roundedBelow") { e in e.receipt.rounded.contains { $0.total == e.value }.feature },
        // A row below prints an amount under a stronger total label than any row printing this one
        // (`Total 6% supplies (Inc. GST)` above `Total Payable`): a part total, however well its
        // sums fit, or an item.
        Feature("strongerTotalBelow") { e in
            guard let last = e.place.lastRow else { return 0 }
            return e.receipt.rows.contains { $0.line.index > last && $0.role.totalStrength > e.strength && !$0.amounts.isEmpty }.feature
        },
    ] + arithmeticTotalFeatures + letterTotalFeatures

    /// Every positive amount the reading holds (and the rules' and further passes' totals) as a
    /// total candidate.
    package static func totals(_ reading: Reading) -> [Candidate] {
        var values: [Decimal] = []
        for row in reading.rows { for token in row.amounts where !values.contains(token.value) { values.append(token.value) } }
        if let pick = reading.total, !values.contains(pick.value) { values.append(pick.value) }
        for other in reading.otherTotals where !values.contains(other.value) { values.append(other.value) }
        // What cash less change leaves, printed or not (issue 58: the total of a receipt whose total
        // row was not read).
        for implied in ReceiptArithmetic(reading).implied where !values.contains(implied) { values.append(implied) }
        let positive = values.filter { $0 > 0 }
        guard !positive.isEmpty else { return [] }
        let receipt = TotalContext(reading, positive: positive)
        return positive.map { value in
            Candidate(field: .total, value: value.moneyString, features: totalFeatures.values(TotalEvidence(value, receipt: receipt)))
        }
    }

    /// Cash rounding to 5 cents (Malaysia, Switzerland, the Nordics…): a total, a rounding row, then
    /// the amount payable rounded — `Total (Incl GST) 23.26 / Rounding Adj -0.01 / TOTAL 23.25`, also
    /// where the rounding's own amount was misread. Pairs of a total-row amount not in whole 5 cents
    /// and an amount in whole 5 cents less than 5 cents from it, on a row below it, with a row
    /// naming the rounding after the total's row and no lower than the rounded amount's.
    static func roundedPairs(_ rows: [AmountLine], lines: [ReceiptLine]) -> [(total: Decimal, rounded: Decimal)] {
        let roundingRows = lines.filter { LabelText($0.text).hasAny(AmountRole.roundingWords) }.map(\.index)
        guard !roundingRows.isEmpty else { return [] }
        var pairs: [(total: Decimal, rounded: Decimal)] = []
        for totalRow in rows where totalRow.role.totalStrength > 0 {
            for total in totalRow.amounts.map(\.value) where total > 0 && !TotalFinder.isMultiple(total, of: 0.05) {
                for row in rows where row.line.index > totalRow.line.index {
                    for value in row.amounts.map(\.value)
                    where value > 0 && abs(value - total) < 0.05 && TotalFinder.isMultiple(value, of: 0.05)
                        && roundingRows.contains(where: { $0 > totalRow.line.index && $0 <= row.line.index }) {
                        pairs.append((total, value))
                    }
                }
            }
        }
        return pairs
    }
}
