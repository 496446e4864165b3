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

    package static func rank(_ rows: [AmountLine], lineItemSum: Decimal? = nil) -> TotalFinding? {
        var byValue: [Decimal: [(AmountRole, AmountLine, AmountToken)]] = [:]
        var roleValues: [AmountRole: [Decimal]] = [:]
        var all: [Decimal] = []
        // Gross amounts a tax table vouches for: "Net 106.82  VAT 16.28" (net + tax) and
        // "1.64 Food BTW 6% 28.95" (a gross whose tax at the row's rate is printed beside it).
        var grossAmounts: [Decimal] = []
        // The purchased items: unlabelled rows before the first subtotal, total, tax or payment row.
        let firstAmountLine = rows.first(where: { !$0.amounts.isEmpty })?.line.index ?? 0
        let itemsEnd = rows.first(where: { r in r.line.index >= firstAmountLine
            && (r.role == .subtotal || r.role.totalStrength >= 7 || r.role == .tax || r.role.isPayment) })?.line.index ?? Int.max
        let everyAmount = Set(rows.flatMap { $0.amounts.map(\.value) })
        for var row in rows {
            var picked = pick(row)
            // "1.64 Food BTW 6% 28.95": a tax table row printing the tax and the gross it is
            // part of; the tax is the amount the rate gives from another amount on the row.
            if row.role == .tax, let rate = row.rate, rate > 0, rate < 30, row.amounts.count >= 2,
               let tax = row.amounts.first(where: { t in row.amounts.contains { x in
                   x.value > t.value && TaxFinder.isTax(t.value, of: x.value, rate: rate) } }) {
                picked = tax
                for x in row.amounts where x.value > tax.value {
                    if close(x.value.tax(includedAt: rate), tax.value) { grossAmounts.append(x.value) }
                    else if close(x.value.tax(addedAt: rate), tax.value) { grossAmounts.append(x.value + tax.value) }
                }
            }
            if row.role == .tax || row.role == .other, row.amounts.count >= 2 {
                let net = row.amounts[row.amounts.count - 2].value, tax = row.amounts[row.amounts.count - 1].value
                if tax > 0, net > tax, tax >= net * minimumTaxShare, tax <= net * maximumTaxShare,
                   row.rate.map({ close(net.tax(addedAt: $0), tax) }) ?? true {
                    grossAmounts.append(net + tax)
                }
            }
            // "(TOTAL INCLUDED GST @ 6%: 0.42)": an amount that is the tax of another amount at
            // the row's rate is the tax, whatever the label says.
            if row.role.totalStrength > 0, let rate = row.rate, rate > 0, rate < 30, let p = picked,
               row.label.hasAny(AmountRole.taxWords),
               everyAmount.contains(where: { x in x > p.value && TaxFinder.isTax(p.value, of: x, rate: rate) }) {
                row.role = .tax
            }
            for token in row.amounts {
                all.append(token.value)
                let role: AmountRole = token == picked ? row.role : .other
                if token == picked {
                    roleValues[bucket(row.role), default: []].append(token.value)
                }
                // "VISA -27.10": a payment printed as a negative line pays that amount.
                let value = token == picked && row.role.isPayment ? abs(token.value) : token.value
                byValue[value, default: []].append((role, row, token))
            }
        }
        let subtotals = roleValues[.subtotal] ?? []
        // A tax as large as a subtotal is a misread number ("CHK 2900 GST 1": a check number).
        let taxes = (roleValues[.tax] ?? []).filter { t in !subtotals.contains { $0 > 0 && t >= $0 } }
        // "Cash -20.00": tendered cash printed as a negative line.
        let cash = (roleValues[.cash] ?? []).map(abs)
        let change = (roleValues[.change] ?? []).map(abs)
        let cards = (roleValues[.card] ?? []).map(abs)
        let roundings = (roleValues[.rounding] ?? []).filter { $0 != 0 && abs($0) < 0.1 }
        let discounts = (roleValues[.discount] ?? []).map(abs)
        let tips = roleValues[.tip] ?? []
        let strongTotals = Set(byValue.filter { $0.value.contains { $0.0.totalStrength >= 7 } }.keys)
        let maxPlain = all.filter { v in
            !(byValue[v]?.allSatisfy { $0.0.isPayment || $0.0 == .change } ?? false)
        }.max()

        // Paid minus change is the total even when OCR lost the total's own row.
        for c in cash {
            for ch in change where ch > 0 && c - ch > 0 && byValue[c - ch] == nil {
                byValue[c - ch] = []
            }
        }
        var labelled = byValue.mapValues { $0.map { $0.0.totalStrength }.max() ?? 0 }

        // The payable amount after a rounding adjustment that no row prints as a total:
        // "Total Sales 177.22 / Rounding -0.02" pays 177.20. Paid minus change confirms it.
        var rounded: [Decimal: Int] = [:]
        for (value, strength) in labelled where strength >= 7 && !isMultiple(value, of: 0.05) {
            for r in roundings {
                for v in [value + r, value - r] where v > 0 && isMultiple(v, of: 0.05) {
                    rounded[v] = max(rounded[v] ?? 0, strength)
                }
            }
            for c in cash {
                for ch in change where ch >= 0 {
                    let v = c - ch
                    if v > 0, v != value, abs(v - value) < 0.03, isMultiple(v, of: 0.05) { rounded[v] = max(rounded[v] ?? 0, strength) }
                }
            }
        }
        for v in rounded.keys where byValue[v] == nil { byValue[v] = [] }
        // "TOTAL 927.96 / EFECTIVO 328.00 / CAMBIO 0.05": a total above the cash handed over,
        // with change given, is misread; the reading one digit away that tendered minus change
        // gives (within cash rounding) is the total.
        var aboveTendered = Set<Decimal>()
        var digitRepaired: [Decimal: Int] = [:]
        if let tendered = cash.max(), cards.isEmpty, change.contains(where: { $0 >= 0 }) {
            for (value, strength) in labelled where strength >= 7 && value > tendered {
                aboveTendered.insert(value)
                for ch in change where ch >= 0 && ch < tendered {
                    let paid = tendered - ch
                    for v in oneDigitVariants(of: value) where v <= tendered && abs(v - paid) <= cashRounding {
                        digitRepaired[v] = max(digitRepaired[v] ?? 0, strength)
                    }
                }
            }
        }
        for v in digitRepaired.keys where byValue[v] == nil { byValue[v] = [] }
        labelled = byValue.mapValues { $0.map { $0.0.totalStrength }.max() ?? 0 }

        /// Subtotal plus tax (less a discount) gives the value.
        func addsUp(_ value: Decimal) -> Bool {
            subtotals.contains(where: { s in
                taxes.contains { close(s + $0, value) } || close(s + taxes.reduce(0, +), value) && !taxes.isEmpty
                    || discounts.contains { d in taxes.contains { close(s - d + $0, value) } || close(s - d, value) }
            })
        }
        // "Total 365.00 / Ser.Tax 20.44 / VAT 7.30 / Round off 0.26 / Net Amount 393.00": a TOTAL
        // printed above the taxes, which a later amount adds up, is only the food total.
        let lastTaxLine = rows.filter { $0.role == .tax && !$0.amounts.isEmpty }.map(\.line.index).max() ?? -1
        let taxSum = taxes.reduce(0, +)
        let partialTotals = taxSum > 0 ? rows.filter { $0.role.totalStrength == 7 && $0.line.index < lastTaxLine }.compactMap { pick($0)?.value } : []
        let anyRounding = (roleValues[.rounding] ?? []).filter { $0 != 0 && abs($0) < 1 }
        func addsUpAfterPartial(_ value: Decimal) -> Bool {
            partialTotals.contains { p in p < value && (close(p + taxSum, value) || anyRounding.contains { close(p + taxSum + $0, value) }) }
        }
        let laterTotals = Set(byValue.keys.filter(addsUpAfterPartial))
        func confirmed(_ value: Decimal) -> Bool { addsUp(value) || grossAmounts.contains { close($0, value) } }
        var best: (value: Decimal, score: Double, strength: Int, checked: Bool, line: Int)? = nil
        for (value, occurrences) in byValue where value > 0 {
            let strength = occurrences.map { $0.0.totalStrength }.max() ?? 0
            let paymentOnly = occurrences.allSatisfy { $0.0.isPayment }
            var score = Double(strength)
            if occurrences.isEmpty {
                score = 1
            } else if strength == 0 {
                if occurrences.contains(where: { $0.0 == .card }) { score = 3 }
                else if occurrences.contains(where: { $0.0 == .cash }) { score = 1 }
                else if occurrences.contains(where: { $0.0 == .subtotal }) { score = 1 }
                else if occurrences.allSatisfy({ $0.0 == .other }) { score = 0.5 }
                else { continue }
            }
            // Repeats on other rows under a total or payment label.
            let supportingRows = Set(occurrences.filter { $0.0.totalStrength > 0 || $0.0 == .card }.map { $0.1.line.index })
            var checked = false
            if supportingRows.count >= 2 { score += min(3, 1.5 * Double(supportingRows.count - 1)); checked = true }
            let otherRows = Set(occurrences.map { $0.1.line.index }).subtracting(supportingRows)
            score += min(1.5, 0.5 * Double(max(0, otherRows.count - (supportingRows.isEmpty ? 1 : 0))))
            if let s = rounded[value], s >= strength { score = max(score, Double(s)) + 2; checked = true }
            if let s = digitRepaired[value], s >= strength { score = max(score, Double(s)) + 2; checked = true }
            if aboveTendered.contains(value) { score -= 4 }
            // Net + tax on the tax table, or the gross the table's rate gives.
            // (Not a total still to be rounded: "Total Sales 177.22 / Rounding -0.02" pays 177.20.)
            if strength > 0 || occurrences.contains(where: { $0.0 == .subtotal }),
               grossAmounts.contains(where: { close($0, value) }), roundings.isEmpty || isMultiple(value, of: 0.05) {
                score += 3; checked = true
            }
            if cards.contains(value) && strength > 0 { score += 2; checked = true }
            let paidMinusChange = cash.contains(where: { c in change.contains { c - $0 == value } })
            if paidMinusChange { score += 4; checked = true }
            if addsUp(value) { score += 4; checked = true }
            else if laterTotals.contains(value) { score += 4; checked = true }
            if partialTotals.contains(value), laterTotals.contains(where: { $0 > value }) { score -= 3 }
            else if isMultiple(value, of: 0.05), subtotals.contains(where: { s in
                taxes.contains { t in let sum = s + t; return abs(sum - value) < 0.03 && !close(sum, value) }
            }) { score += 3; checked = true }
            if subtotals.contains(where: { value > $0 * Decimal(string: "1.3")! + 1 }) && tips.isEmpty { score -= 3 }
            if roundings.contains(where: { r in strongTotals.contains(value - r) || strongTotals.contains(value + r) }),
               isMultiple(value, of: 0.05) { score += 3; checked = true }
            // The items add up to the subtotal; when tax is added on top that is not the total.
            let subtotalBeforeTax = occurrences.allSatisfy({ $0.0 == .subtotal }) && taxes.contains(where: { $0 > 0 })
            // An unlabelled amount among the items is one of them: the items adding up to it
            // means it is the only one, which confirms nothing.
            let isItem = !occurrences.isEmpty && occurrences.allSatisfy { $0.0 == .other && $0.1.line.index < itemsEnd }
            if let lineItemSum, close(lineItemSum, value), !subtotalBeforeTax, !isItem { score += 2; checked = true }
            if subtotals.contains(value) && taxes.allSatisfy({ $0 == 0 }) { score += 0.5 }
            if value == maxPlain { score += 1 }
            // "Balance Due 238.65" beside "Subtotal 26.16 / Tax 2.49 / Total 28.65": a stray digit
            // (often the $ sign) read into an amount that the arithmetic confirms without it.
            if !confirmed(value), byValue.keys.contains(where: { $0 > 0 && $0 != value && confirmed($0)
                && (hasOneExtraDigit(value, comparedTo: $0) || differsInOneDigit(value, $0)) }) {
                score -= 3
            }
            // A printed amount that cash minus change confirms outweighs a (misread) bigger subtotal.
            if subtotals.contains(where: { $0 > value }) && discounts.isEmpty && !(paidMinusChange && !occurrences.isEmpty) { score -= 3 }
            if taxes.contains(where: { $0 >= value }) { score -= 3 }
            if paymentOnly && cash.contains(value) && change.contains(where: { $0 > 0 }) { score -= 2 }
            if occurrences.allSatisfy({ $0.2.repaired }) { score -= 0.5 }
            // A bigger amount under an equal or stronger total label: this one is a partial total.
            if strength > 0, labelled.contains(where: { $0.key > value && $0.value >= max(strength, 7) }) { score -= 1.5 }
            let lastLine = occurrences.filter { $0.0.totalStrength == strength }.map { $0.1.line.index }.max() ?? 0
            if best == nil || score > best!.score || score == best!.score && value > best!.value {
                best = (value, score, strength, checked, lastLine)
            }
        }
        guard let best else { return nil }
        var confidence = min(1, 0.25 + Double(min(best.strength, 10)) * 0.05 + (best.checked ? 0.3 : 0))
        if best.strength == 0 { confidence = min(confidence, 0.3) }
        return TotalFinding(value: best.value, confidence: confidence, labelStrength: best.strength,
                            crossChecked: best.checked, score: best.score)
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

    package static func close(_ a: Decimal, _ b: Decimal) -> Bool { abs(a - b) <= centTolerance }

    package static func isMultiple(_ value: Decimal, of step: Decimal) -> Bool {
        var q = value / step
        var r = Decimal()
        NSDecimalRound(&r, &q, 0, .plain)
        return abs(r - q) < epsilon
    }
}
