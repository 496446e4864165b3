import Foundation
import ReceiptModel

/// The total a receipt's rows support, with the evidence for it.
package struct TotalFinding: Sendable {
    package var value: Decimal
    /// 0–1.
    package var confidence: Double
    /// The best label score behind the value (12 = GRAND TOTAL and the like, 7 = TOTAL).
    package var labelStrength: Int
    /// Arithmetic on the receipt agrees with the value (subtotal + tax, cash − change, a card
    /// payment of the same amount, the sum of the line items, a repeat under another total label).
    package var crossChecked: Bool
    /// The evidence score (for comparing findings from several OCR passes).
    package var score: Double

    package init(value: Decimal, confidence: Double, labelStrength: Int, crossChecked: Bool, score: Double) {
        self.value = value
        self.confidence = confidence
        self.labelStrength = labelStrength
        self.crossChecked = crossChecked
        self.score = score
    }
}

/// Picks the total among a receipt's amounts: label ranking first, then cross-checks.
package enum TotalFinder {
    package static func find(_ rows: [AmountLine], lineItemSum: Decimal? = nil) -> TotalFinding? {
        guard var finding = rank(rows, lineItemSum: lineItemSum) else { return impliedByIncludedTax(rows) }
        if finding.labelStrength == 0, let implied = impliedByIncludedTax(rows), implied.score > finding.score { finding = implied }
        return finding
    }

    /// "VAT @ 20% incl. £1.25" when no total was readable: the gross is tax × (100 + rate) / rate,
    /// taken when that comes out at whole pence within the rounding of the printed tax.
    package static func impliedByIncludedTax(_ rows: [AmountLine]) -> TotalFinding? {
        for row in rows where row.role == .tax && row.label.hasAny(AmountRole.inclusiveWords) {
            guard let rate = row.rate, rate > 0, rate < 30, let tax = row.amounts.last?.value, tax > 0 else { continue }
            let gross = tax * (100 + rate) / rate
            let rounded = gross.rounded(scale: 2)
            guard abs(gross - rounded) < epsilon, isMultiple(rounded, of: 0.05) else { continue }
            return TotalFinding(value: rounded, confidence: 0.3, labelStrength: 0, crossChecked: false, score: 2.5)
        }
        return nil
    }

    /// The amount the rows support best as the total: every amount printed, and every amount the
    /// arithmetic implies (cash less change, a total after its rounding, a misread total mended),
    /// gets its label's score (`baseScore`) and then each of `rules` in turn. The best score wins;
    /// on a tie, the larger amount.
    package static func rank(_ rows: [AmountLine], lineItemSum: Decimal? = nil) -> TotalFinding? {
        let evidence = Evidence(rows, lineItemSum: lineItemSum)
        var best: (candidate: Candidate, score: Score)? = nil
        for (value, occurrences) in evidence.byValue where value > 0 {
            let candidate = Candidate(value: value, occurrences: occurrences)
            guard let score = score(candidate, evidence) else { continue }
            if best == nil || score.points > best!.score.points
                || score.points == best!.score.points && value > best!.candidate.value {
                best = (candidate, score)
            }
        }
        guard let (candidate, score) = best else { return nil }
        var confidence = min(1, 0.25 + Double(min(candidate.strength, 10)) * 0.05 + (score.checked ? 0.3 : 0))
        if candidate.strength == 0 { confidence = min(confidence, 0.3) }
        return TotalFinding(value: candidate.value, confidence: confidence, labelStrength: candidate.strength,
                            crossChecked: score.checked, score: score.points)
    }

    // MARK: - Candidates and their score

    /// One row printing an amount, with the role the row gives that amount (`.other` for an
    /// amount of the row that its label does not refer to).
    private struct Occurrence {
        var role: AmountRole
        var row: AmountLine
        var token: AmountToken
    }

    /// An amount that may be the total, with the rows printing it (none for an amount only the
    /// arithmetic implies).
    private struct Candidate {
        let value: Decimal
        let occurrences: [Occurrence]
        /// The strongest total label it is printed under (0 for none).
        let strength: Int

        init(value: Decimal, occurrences: [Occurrence]) {
            self.value = value
            self.occurrences = occurrences
            strength = occurrences.map(\.role.totalStrength).max() ?? 0
        }

        func has(_ role: AmountRole) -> Bool { occurrences.contains { $0.role == role } }
        func isOnly(_ role: AmountRole) -> Bool { occurrences.allSatisfy { $0.role == role } }
        var paymentOnly: Bool { occurrences.allSatisfy(\.role.isPayment) }
        /// The rows printing it under a total or card label.
        var supportingRows: Set<Int> {
            Set(occurrences.filter { $0.role.totalStrength > 0 || $0.role == .card }.map(\.row.line.index))
        }
    }

    /// A candidate's score so far.
    private struct Score {
        var points: Double
        /// Arithmetic on the receipt agrees with the value (`TotalFinding.crossChecked`).
        var checked = false

        mutating func add(_ p: Double) { points += p }
        /// A cross-check: `p` points, and the value counts as checked.
        mutating func confirm(_ p: Double) { points += p; checked = true }
        /// An implied value scores at least as the label it was derived from, plus `bonus`.
        mutating func raise(to floor: Double, plus bonus: Double) {
            points = max(points, floor) + bonus
            checked = true
        }
    }

    private static func score(_ candidate: Candidate, _ evidence: Evidence) -> Score? {
        guard let base = baseScore(candidate) else { return nil }
        var score = Score(points: base)
        for rule in rules { rule(candidate, evidence, &score) }
        return score
    }

    /// The label's score: its total strength (12 = GRAND TOTAL, 7 = TOTAL); without a total label,
    /// 3 for a card payment, 1 for cash, a subtotal or an implied amount, 0.5 for an amount of
    /// unlabelled rows only; nil (no candidate) for one printed as a tax, change, a discount …
    /// and under no total, payment or subtotal label.
    private static func baseScore(_ c: Candidate) -> Double? {
        if c.occurrences.isEmpty { return 1 }
        guard c.strength == 0 else { return Double(c.strength) }
        if c.has(.card) { return 3 }
        if c.has(.cash) { return 1 }
        if c.has(.subtotal) { return 1 }
        if c.isOnly(.other) { return 0.5 }
        return nil
    }

    /// The rules a candidate's score goes through after `baseScore`, in this order (it matters:
    /// `roundedTotal` and `digitRepairedTotal` raise the score to a label's strength).
    private static let rules: [@Sendable (Candidate, Evidence, inout Score) -> Void] = [
        repeatedUnderTotalLabels, repeatedOnOtherRows, roundedTotal, digitRepairedTotal, aboveCashTendered,
        grossOfTaxTable, paidByCard, cashLessChange, subtotalPlusTax, partialTotalPlusTaxes, partialTotalBeforeTaxes,
        subtotalPlusTaxToCashRounding, farAboveSubtotal, strongTotalRounded, lineItemsAddUp, subtotalWithoutTax,
        largestAmount, strayDigit, belowSubtotal, noMoreThanTax, cashTenderedWithChange, onlyRepairedReadings,
        partialUnderStrongerLabel,
    ]

    /// Repeats on other rows under a total or payment label.
    private static func repeatedUnderTotalLabels(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        let supporting = c.supportingRows.count
        if supporting >= 2 { s.confirm(min(3, 1.5 * Double(supporting - 1))) }
    }

    /// Repeats on rows without such a label (the first one not counting when no labelled row prints it).
    private static func repeatedOnOtherRows(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        let supporting = c.supportingRows
        let otherRows = Set(c.occurrences.map(\.row.line.index)).subtracting(supporting)
        s.add(min(1.5, 0.5 * Double(max(0, otherRows.count - (supporting.isEmpty ? 1 : 0)))))
    }

    /// "Total Sales 177.22 / Rounding -0.02" pays 177.20: the total after a rounding no row prints
    /// (`Evidence.rounded`).
    private static func roundedTotal(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if let strength = e.rounded[c.value], strength >= c.strength { s.raise(to: Double(strength), plus: 2) }
    }

    /// "TOTAL 927.96 / EFECTIVO 328.00 / CAMBIO 0.05": the total one digit away from a misread one
    /// that tendered minus change gives (`Evidence.digitRepaired`).
    private static func digitRepairedTotal(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if let strength = e.digitRepaired[c.value], strength >= c.strength { s.raise(to: Double(strength), plus: 2) }
    }

    /// A total above the cash handed over (with change given) is misread.
    private static func aboveCashTendered(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.aboveTendered.contains(c.value) { s.add(-4) }
    }

    /// Net + tax on the tax table, or the gross the table's rate gives.
    /// (Not a total still to be rounded: "Total Sales 177.22 / Rounding -0.02" pays 177.20.)
    private static func grossOfTaxTable(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if c.strength > 0 || c.has(.subtotal), e.grossAmounts.contains(where: { close($0, c.value) }),
           e.roundings.isEmpty || isMultiple(c.value, of: 0.05) {
            s.confirm(3)
        }
    }

    /// A labelled total that a card payment pays.
    private static func paidByCard(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.cards.contains(c.value) && c.strength > 0 { s.confirm(2) }
    }

    /// Cash tendered less the change given.
    private static func cashLessChange(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.isCashLessChange(c.value) { s.confirm(4) }
    }

    /// Subtotal plus tax (less a discount).
    private static func subtotalPlusTax(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.addsUp(c.value) { s.confirm(4) }
    }

    /// A partial total plus the taxes printed after it (`Evidence.laterTotals`), when
    /// `subtotalPlusTax` did not already confirm the value.
    private static func partialTotalPlusTaxes(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if !e.addsUp(c.value), e.laterTotals.contains(c.value) { s.confirm(4) }
    }

    /// "Total 365.00 / Ser.Tax 20.44 / … / Net Amount 393.00": a TOTAL printed above the taxes,
    /// which a later amount adds up, is only the food total.
    private static func partialTotalBeforeTaxes(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.isPartialBeforeTaxes(c.value) { s.add(-3) }
    }

    /// Subtotal plus tax within 3 cents (not to the cent) of an amount in whole 5 cents: the sum
    /// rounded for cash. (Not for a partial total before the taxes.)
    private static func subtotalPlusTaxToCashRounding(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        guard !e.isPartialBeforeTaxes(c.value) else { return }
        if isMultiple(c.value, of: 0.05), e.subtotals.contains(where: { subtotal in
            e.taxes.contains { t in let sum = subtotal + t; return abs(sum - c.value) < 0.03 && !close(sum, c.value) }
        }) { s.confirm(3) }
    }

    /// Far above a subtotal (30% and 1 more) with no tip to explain it.
    private static func farAboveSubtotal(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.subtotals.contains(where: { c.value > $0 * subtotalMarkup + 1 }) && e.tips.isEmpty { s.add(-3) }
    }

    /// A strong total plus or less the rounding row, in whole 5 cents.
    private static func strongTotalRounded(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.roundings.contains(where: { r in e.strongTotals[c.value - r] != nil || e.strongTotals[c.value + r] != nil }),
           isMultiple(c.value, of: 0.05) {
            s.confirm(3)
        }
    }

    /// The line items add up to the value.
    private static func lineItemsAddUp(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        // The items add up to the subtotal; when tax is added on top that is not the total.
        let subtotalBeforeTax = c.isOnly(.subtotal) && e.taxes.contains(where: { $0 > 0 })
        // An unlabelled amount among the items is one of them: the items adding up to it
        // means it is the only one, which confirms nothing.
        let isItem = !c.occurrences.isEmpty && c.occurrences.allSatisfy { $0.role == .other && $0.row.line.index < e.itemsEnd }
        if let sum = e.lineItemSum, close(sum, c.value), !subtotalBeforeTax, !isItem { s.confirm(2) }
    }

    /// A subtotal with no tax to add to it.
    private static func subtotalWithoutTax(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.subtotals.contains(c.value) && e.taxes.allSatisfy({ $0 == 0 }) { s.add(0.5) }
    }

    /// The largest amount printed (other than as a payment or change only).
    private static func largestAmount(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if c.value == e.largestAmount { s.add(1) }
    }

    /// "Balance Due 238.65" beside "Subtotal 26.16 / Tax 2.49 / Total 28.65": a stray digit
    /// (often the $ sign) read into an amount that the arithmetic confirms without it.
    private static func strayDigit(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if !e.confirmed(c.value), e.byValue.keys.contains(where: { $0 > 0 && $0 != c.value && e.confirmed($0)
            && (hasOneExtraDigit(c.value, comparedTo: $0) || differsInOneDigit(c.value, $0)) }) {
            s.add(-3)
        }
    }

    /// Below a subtotal, with no discount. A printed amount that cash minus change confirms
    /// outweighs a (misread) bigger subtotal.
    private static func belowSubtotal(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.subtotals.contains(where: { $0 > c.value }) && e.discounts.isEmpty
            && !(e.isCashLessChange(c.value) && !c.occurrences.isEmpty) {
            s.add(-3)
        }
    }

    /// No more than a tax.
    private static func noMoreThanTax(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if e.taxes.contains(where: { $0 >= c.value }) { s.add(-3) }
    }

    /// The cash handed over, printed only as a payment, when change was given.
    private static func cashTenderedWithChange(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if c.paymentOnly && e.cash.contains(c.value) && e.change.contains(where: { $0 > 0 }) { s.add(-2) }
    }

    /// Read only from numbers that had to be repaired.
    private static func onlyRepairedReadings(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if c.occurrences.allSatisfy(\.token.repaired) { s.add(-0.5) }
    }

    /// A bigger amount under an equal or stronger total label: this one is a partial total.
    private static func partialUnderStrongerLabel(_ c: Candidate, _ e: Evidence, _ s: inout Score) {
        if c.strength > 0, e.strongTotals.contains(where: { $0.key > c.value && $0.value >= max(c.strength, 7) }) { s.add(-1.5) }
    }

    // MARK: - Evidence

    /// What the rows say about the receipt's amounts, gathered once for every candidate.
    private struct Evidence {
        /// Every amount with the rows printing it; the amounts the arithmetic implies, with none.
        var byValue: [Decimal: [Occurrence]]
        /// Gross amounts a tax table vouches for (`Printed.grossAmounts`).
        let grossAmounts: [Decimal]
        let subtotals: [Decimal]
        /// The taxes but one as large as a subtotal. A tax as large as a subtotal is a misread
        /// number ("CHK 2900 GST 1": a check number).
        let taxes: [Decimal]
        /// Payments and change as sizes ("Cash -20.00": tendered cash printed as a negative line).
        let cash: [Decimal], change: [Decimal], cards: [Decimal]
        /// Rounding adjustments under 10 cents.
        let roundings: [Decimal]
        let discounts: [Decimal]
        let tips: [Decimal]
        /// Amounts under a total label of strength 7 or more, with the strongest such label.
        let strongTotals: [Decimal: Int]
        /// The largest amount printed other than as a payment or change only.
        let largestAmount: Decimal?
        /// The row where the purchased items end (`itemsEnd`).
        let itemsEnd: Int
        let lineItemSum: Decimal?
        /// Totals after a rounding no row prints, with the strength of the total rounded
        /// (`roundedTotals`, `cashRoundedTotals`).
        let rounded: [Decimal: Int]
        /// Strong totals above the cash tendered, and the readings one digit away that cash less
        /// change gives, with the strength of the total they mend (`digitRepairedTotals`).
        let aboveTendered: Set<Decimal>, digitRepaired: [Decimal: Int]
        /// Totals printed above the taxes, and the amounts adding the taxes to one of them
        /// (`partialAndLaterTotals`).
        let partialTotals: [Decimal], laterTotals: Set<Decimal>

        init(_ rows: [AmountLine], lineItemSum: Decimal?) {
            let printed = Printed(rows)
            let values = printed.roleValues
            let subtotals = values[.subtotal] ?? []
            self.subtotals = subtotals
            taxes = (values[.tax] ?? []).filter { t in !subtotals.contains { $0 > 0 && t >= $0 } }
            cash = (values[.cash] ?? []).map(abs)
            change = (values[.change] ?? []).map(abs)
            cards = (values[.card] ?? []).map(abs)
            roundings = (values[.rounding] ?? []).filter { $0 != 0 && abs($0) < 0.1 }
            discounts = (values[.discount] ?? []).map(abs)
            tips = values[.tip] ?? []
            grossAmounts = printed.grossAmounts
            strongTotals = printed.strongTotals
            largestAmount = printed.largestAmount
            itemsEnd = TotalFinder.itemsEnd(rows)
            self.lineItemSum = lineItemSum
            rounded = roundedTotals(strongTotals, roundings: roundings)
                .merging(cashRoundedTotals(strongTotals, cash: cash, change: change), uniquingKeysWith: max)
            (aboveTendered, digitRepaired) = digitRepairedTotals(strongTotals, cash: cash, cards: cards, change: change)
            let implied = cashLessChangeValues(cash: cash, change: change) + rounded.keys + digitRepaired.keys
            byValue = printed.byValue.merging(implied.map { ($0, []) }, uniquingKeysWith: { printed, _ in printed })
            (partialTotals, laterTotals) = partialAndLaterTotals(rows, taxes: taxes, roundings: values[.rounding] ?? [],
                                                                 among: byValue.keys)
        }

        /// Subtotal plus tax (less a discount) gives the value.
        func addsUp(_ value: Decimal) -> Bool {
            subtotals.contains(where: { s in
                taxes.contains { close(s + $0, value) } || close(s + taxes.reduce(0, +), value) && !taxes.isEmpty
                    || discounts.contains { d in taxes.contains { close(s - d + $0, value) } || close(s - d, value) }
            })
        }

        /// Arithmetic confirms the value: subtotal plus tax, or a tax table's gross.
        func confirmed(_ value: Decimal) -> Bool { addsUp(value) || grossAmounts.contains { close($0, value) } }

        func isCashLessChange(_ value: Decimal) -> Bool { cash.contains(where: { c in change.contains { c - $0 == value } }) }

        /// A total printed above the taxes while a larger amount adds them to it.
        func isPartialBeforeTaxes(_ value: Decimal) -> Bool {
            partialTotals.contains(value) && laterTotals.contains(where: { $0 > value })
        }
    }

    /// The amounts as printed: each with the rows printing it, the amounts the labels refer to
    /// by role, and the gross amounts tax tables vouch for.
    private struct Printed {
        var byValue: [Decimal: [Occurrence]] = [:]
        var roleValues: [AmountRole: [Decimal]] = [:]
        var all: [Decimal] = []
        /// Gross amounts a tax table vouches for: "Net 106.82  VAT 16.28" (net + tax) and
        /// "1.64 Food BTW 6% 28.95" (a gross whose tax at the row's rate is printed beside it).
        var grossAmounts: [Decimal] = []

        init(_ rows: [AmountLine]) {
            let everyAmount = Set(rows.flatMap { $0.amounts.map(\.value) })
            for var row in rows {
                var picked = pick(row)
                if let table = taxTableRow(row) {
                    picked = table.tax
                    grossAmounts += table.gross
                }
                if let gross = netPlusTax(row) { grossAmounts.append(gross) }
                if isIncludedTaxNote(row, picked: picked, among: everyAmount) { row.role = .tax }
                add(row, picked: picked)
            }
        }

        mutating func add(_ row: AmountLine, picked: AmountToken?) {
            for token in row.amounts {
                all.append(token.value)
                let role: AmountRole = token == picked ? row.role : .other
                if token == picked {
                    roleValues[bucket(row.role), default: []].append(token.value)
                }
                // "VISA -27.10": a payment printed as a negative line pays that amount.
                let value = token == picked && row.role.isPayment ? abs(token.value) : token.value
                byValue[value, default: []].append(Occurrence(role: role, row: row, token: token))
            }
        }

        /// Amounts under a total label of strength 7 or more, with the strongest such label.
        var strongTotals: [Decimal: Int] {
            byValue.compactMapValues { o in
                let strength = o.map(\.role.totalStrength).max() ?? 0
                return strength >= 7 ? strength : nil
            }
        }

        /// The largest amount printed other than as a payment or change only.
        var largestAmount: Decimal? {
            all.filter { v in !(byValue[v]?.allSatisfy { $0.role.isPayment || $0.role == .change } ?? false) }.max()
        }
    }

    /// "1.64 Food BTW 6% 28.95": a tax table row printing the tax and the gross it is part of;
    /// the tax is the amount the rate gives from another amount on the row.
    private static func taxTableRow(_ row: AmountLine) -> (tax: AmountToken, gross: [Decimal])? {
        guard row.role == .tax, let rate = row.rate, rate > 0, rate < 30, row.amounts.count >= 2,
              let tax = row.amounts.first(where: { t in row.amounts.contains { x in
                  x.value > t.value && TaxFinder.isTax(t.value, of: x.value, rate: rate) } }) else { return nil }
        var gross: [Decimal] = []
        for x in row.amounts where x.value > tax.value {
            if close(x.value.tax(includedAt: rate), tax.value) { gross.append(x.value) }
            else if close(x.value.tax(addedAt: rate), tax.value) { gross.append(x.value + tax.value) }
        }
        return (tax, gross)
    }

    /// "Net 106.82  VAT 16.28": the last two amounts of a tax or unlabelled row as net and tax (a
    /// plausible share of the net, and the row's rate of it when the row prints one) give a gross.
    private static func netPlusTax(_ row: AmountLine) -> Decimal? {
        guard row.role == .tax || row.role == .other, row.amounts.count >= 2 else { return nil }
        let net = row.amounts[row.amounts.count - 2].value, tax = row.amounts[row.amounts.count - 1].value
        guard tax > 0, net > tax, tax >= net * minimumTaxShare, tax <= net * maximumTaxShare,
              row.rate.map({ close(net.tax(addedAt: $0), tax) }) ?? true else { return nil }
        return net + tax
    }

    /// "(TOTAL INCLUDED GST @ 6%: 0.42)": an amount that is the tax of another amount at the
    /// row's rate is the tax, whatever the label says.
    private static func isIncludedTaxNote(_ row: AmountLine, picked: AmountToken?, among everyAmount: Set<Decimal>) -> Bool {
        guard row.role.totalStrength > 0, let rate = row.rate, rate > 0, rate < 30, let p = picked,
              row.label.hasAny(AmountRole.taxWords) else { return false }
        return everyAmount.contains { x in x > p.value && TaxFinder.isTax(p.value, of: x, rate: rate) }
    }

    /// The purchased items: unlabelled rows before the first subtotal, total, tax or payment row
    /// (the row index where they end).
    private static func itemsEnd(_ rows: [AmountLine]) -> Int {
        let firstAmountLine = rows.first(where: { !$0.amounts.isEmpty })?.line.index ?? 0
        return rows.first(where: { r in r.line.index >= firstAmountLine
            && (r.role == .subtotal || r.role.totalStrength >= 7 || r.role == .tax || r.role.isPayment) })?.line.index ?? Int.max
    }

    /// Paid minus change is the total even when OCR lost the total's own row.
    private static func cashLessChangeValues(cash: [Decimal], change: [Decimal]) -> [Decimal] {
        cash.flatMap { c in change.filter { ch in ch > 0 && c - ch > 0 }.map { c - $0 } }
    }

    /// The payable amount after a rounding adjustment that no row prints as a total:
    /// "Total Sales 177.22 / Rounding -0.02" pays 177.20.
    private static func roundedTotals(_ strongTotals: [Decimal: Int], roundings: [Decimal]) -> [Decimal: Int] {
        var rounded: [Decimal: Int] = [:]
        for (value, strength) in strongTotals where !isMultiple(value, of: 0.05) {
            for r in roundings {
                for v in [value + r, value - r] where v > 0 && isMultiple(v, of: 0.05) {
                    rounded[v] = max(rounded[v] ?? 0, strength)
                }
            }
        }
        return rounded
    }

    /// The same rounding confirmed by paid minus change: within 3 cents of a strong total that is
    /// not in whole 5 cents.
    private static func cashRoundedTotals(_ strongTotals: [Decimal: Int], cash: [Decimal], change: [Decimal]) -> [Decimal: Int] {
        var rounded: [Decimal: Int] = [:]
        for (value, strength) in strongTotals where !isMultiple(value, of: 0.05) {
            for c in cash {
                for ch in change where ch >= 0 {
                    let v = c - ch
                    if v > 0, v != value, abs(v - value) < 0.03, isMultiple(v, of: 0.05) { rounded[v] = max(rounded[v] ?? 0, strength) }
                }
            }
        }
        return rounded
    }

    /// "TOTAL 927.96 / EFECTIVO 328.00 / CAMBIO 0.05": a total above the cash handed over,
    /// with change given, is misread; the reading one digit away that tendered minus change
    /// gives (within cash rounding) is the total.
    private static func digitRepairedTotals(_ strongTotals: [Decimal: Int], cash: [Decimal], cards: [Decimal],
                                            change: [Decimal]) -> (above: Set<Decimal>, repaired: [Decimal: Int]) {
        var aboveTendered = Set<Decimal>()
        var digitRepaired: [Decimal: Int] = [:]
        guard let tendered = cash.max(), cards.isEmpty, change.contains(where: { $0 >= 0 }) else { return ([], [:]) }
        for (value, strength) in strongTotals where value > tendered {
            aboveTendered.insert(value)
            for ch in change where ch >= 0 && ch < tendered {
                let paid = tendered - ch
                for v in oneDigitVariants(of: value) where v <= tendered && abs(v - paid) <= cashRounding {
                    digitRepaired[v] = max(digitRepaired[v] ?? 0, strength)
                }
            }
        }
        return (aboveTendered, digitRepaired)
    }

    /// "Total 365.00 / Ser.Tax 20.44 / VAT 7.30 / Round off 0.26 / Net Amount 393.00": a TOTAL
    /// printed above the taxes, which a later amount adds up, is only the food total. The
    /// partial totals are the amounts of TOTAL rows above the last tax row (when a tax was read);
    /// the later totals, the amounts adding the taxes (and a rounding under 1) to one of them.
    private static func partialAndLaterTotals(_ rows: [AmountLine], taxes: [Decimal], roundings: [Decimal],
                                              among values: Dictionary<Decimal, [Occurrence]>.Keys) -> ([Decimal], Set<Decimal>) {
        let lastTaxLine = rows.filter { $0.role == .tax && !$0.amounts.isEmpty }.map(\.line.index).max() ?? -1
        let taxSum = taxes.reduce(0, +)
        let partialTotals = taxSum > 0 ? rows.filter { $0.role.totalStrength == 7 && $0.line.index < lastTaxLine }.compactMap { pick($0)?.value } : []
        let anyRounding = roundings.filter { $0 != 0 && abs($0) < 1 }
        let laterTotals = Set(values.filter { value in
            partialTotals.contains { p in
                p < value && (close(p + taxSum, value) || anyRounding.contains { close(p + taxSum + $0, value) })
            }
        })
        return (partialTotals, laterTotals)
    }

    /// The amount of a row that its label refers to: the rightmost one (the amount column).
    package static func pick(_ row: AmountLine) -> AmountToken? {
        row.amounts.last
    }

    private static func bucket(_ role: AmountRole) -> AmountRole {
        if case .total = role { return .total(strength: 0) }
        return role
    }

    /// `238.65` is `28.65` with one more digit somewhere.
    package static func hasOneExtraDigit(_ a: Decimal, comparedTo b: Decimal) -> Bool {
        let x = Array(a.moneyString.filter(\.isASCIIDigit)), y = Array(b.moneyString.filter(\.isASCIIDigit))
        guard x.count == y.count + 1 else { return false }
        return x.indices.contains { i in var z = x; z.remove(at: i); return z == y }
    }

    /// `422.10` and `122.10`: the same number of digits, one of them different.
    package static func differsInOneDigit(_ a: Decimal, _ b: Decimal) -> Bool {
        let x = Array(a.moneyString.filter(\.isASCIIDigit)), y = Array(b.moneyString.filter(\.isASCIIDigit))
        return x.count == y.count && zip(x, y).filter { $0 != $1 }.count == 1
    }

    /// Every amount that differs from `value` in one digit.
    package static func oneDigitVariants(of value: Decimal) -> [Decimal] {
        let digits = Array(value.moneyString.filter(\.isASCIIDigit))
        var result: [Decimal] = []
        for i in digits.indices {
            for d in "0123456789" where d != digits[i] {
                var z = digits
                z[i] = d
                if let v = Decimal(string: String(z)) { result.append(v / 100) }
            }
        }
        return result
    }

    /// Decimal constants parsed once: these comparisons run for every pair of amounts.
    private static let centTolerance = Decimal(string: "0.011")!
    private static let epsilon = Decimal(string: "0.0001")!
    private static let cashRounding = Decimal(string: "0.05")!
    private static let minimumTaxShare = Decimal(string: "0.02")!, maximumTaxShare = Decimal(string: "0.3")!
    private static let subtotalMarkup = Decimal(string: "1.3")!

    package static func close(_ a: Decimal, _ b: Decimal) -> Bool { abs(a - b) <= centTolerance }

    package static func isMultiple(_ value: Decimal, of step: Decimal) -> Bool {
        var q = value / step
        var r = Decimal()
        NSDecimalRound(&r, &q, 0, .plain)
        return abs(r - q) < epsilon
    }
}
