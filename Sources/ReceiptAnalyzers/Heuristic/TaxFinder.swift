import Foundation
import ReceiptModel

package struct TaxFinding: Sendable, Equatable {
    package var value: Decimal
    package var confidence: Double
    /// True when computed from a printed rate and the total (nothing printed as the tax amount).
    package var computed: Bool
}

/// Finds the tax: VAT, GST, SST, TAX, SALES TAX, MwSt/USt, TVA, IVA, BTW rows.
///
/// Handles tax added on top (subtotal + tax = total) and tax included in the total
/// (tax = total × rate / (100 + rate)); several rates are summed.
package enum TaxFinder {
    /// Rows naming a tax number or a heading, not an amount of tax.
    private static let notAmounts: PhraseList = ["TAX INVOICE", "GST NO", "GST ID", "GST REG", "VAT NO", "VAT REG", "TAX ID",
                                     "TAX NO", "VAT NUMBER", "GST REG NO", "TAX CODE", "TAX EXEMPT", "VAT ID",
                                     "UST ID", "UST IDNR", "STEUERNUMMER", "STEUER NR", "TAX REG", "SST NO", "SST ID",
                                     "GSTIN", "TIN", "TAX REGISTRATION"]

    /// `Tbl 4/1 Chk 3241 Gst 4`: the guests of a restaurant check, not a tax.
    private static let guestCount = Pattern(#"\bGST\s*[:#]?\s*\d{1,2}\s*$"#)

    private struct Candidate {
        var value: Decimal; var rate: Decimal?; var summary: Bool; var line: Int; var consistent: Bool
        var repaired = false
    }

    package static func find(_ rows: [AmountLine], total: Decimal?) -> TaxFinding? {
        guard let finding = bestReading(rows, total: total) else { return nil }
        // "Subtotal 27.59" misread as the tax row above "Total 27.99": a tax is a fraction of what
        // it is charged on, never over half the total (nor over half the largest amount printed,
        // when the total itself was misread); such an amount is the net or the total itself, and
        // no tax beats a wrong one.
        if let total, total > 0 {
            let largest = rows.flatMap(\.amounts).map(\.value).max() ?? 0
            if finding.value * 2 > max(total, largest) { return nil }
        }
        return finding
    }

    private static func bestReading(_ rows: [AmountLine], total: Decimal?) -> TaxFinding? {
        var candidates: [Candidate] = []
        var inclusiveRate: Decimal? = nil
        var unreadableTaxRow = false
        let subtotals = rows.filter { $0.role == .subtotal }.compactMap { $0.amounts.last?.value }
        // Tax is a fraction of what it is charged on: never as much as the subtotal.
        let cap = subtotals.filter { $0 > 0 }.max()
        let taxRates = Set(rows.filter { $0.role == .tax && !$0.amounts.isEmpty }.compactMap(\.rate))
        for (index, row) in rows.enumerated() {
            let label = row.label
            let isTaxRow = label.hasAny(AmountRole.taxWords) || label.compact.hasSuffix("TAX") || misreadTaxLabel(label)
            guard isTaxRow else {
                if let c = localTaxRow(row, subtotals: subtotals, total: total) ?? taxTableRow(row, heading: index > 0 ? rows[index - 1] : nil, total: total) {
                    candidates.append(c)
                }
                continue
            }
            guard !label.hasAny(notAmounts) || !row.amounts.isEmpty && !label.has("TAX INVOICE") else { continue }
            if !row.amounts.isEmpty, row.amounts.allSatisfy(\.repaired), guestCount.matches(row.line.text) { continue }
            let rate = row.rate
            if row.amounts.isEmpty {
                if let rate, rate > 0, rate < 30, label.hasAny(AmountRole.inclusiveWords) { inclusiveRate = rate }
                // "GST -- Rate -- Before GST -- GST Amt" over "7% …" whose amounts are unreadable: a tax
                // table splits the total into net and tax, so the tax is included at that rate.
                if label.has("RATE"), index + 1 < rows.count, rows[index + 1].role == .other,
                   let r = rows[index + 1].rate, r > 0, r < 30 {
                    inclusiveRate = inclusiveRate ?? r
                }
                // "TOTAL TAX 00", "TAX 0": no tax, its decimal point lost.
                if let last = row.line.text.split(whereSeparator: \.isWhitespace).last, last.count <= 2,
                   last.allSatisfy({ $0 == "0" }), !label.hasAny(notAmounts) {
                    candidates.append(Candidate(value: 0, rate: nil, summary: false, line: row.line.index, consistent: false))
                } else if !label.hasAny(notAmounts) && !label.hasAny(AmountRole.inclusiveWords) && row.role == .tax {
                    unreadableTaxRow = true
                }
                continue
            }
            if row.role.totalStrength >= 7 {
                // "TOTAL INCL. GST 6% 9.00": the amount is the total; remember the rate.
                if let rate, rate > 0, rate < 30 { inclusiveRate = rate }
                // "GST included in total $6.33" under "TOTAL $69.60": a row naming the tax as
                // included whose amount is a fraction of the total is the tax, not the total.
                if label.hasAny(AmountRole.inclusiveWords), let total, row.amounts.count == 1, let v = row.amounts.first?.value,
                   v > 0, v * 4 < total {
                    let consistent = rate.map { TotalFinder.close(total.tax(includedAt: $0), v) } ?? false
                    candidates.append(Candidate(value: v, rate: rate, summary: false, line: row.line.index, consistent: consistent))
                }
                continue
            }
            // "101.97-@ 6.75% TAX 6.88-": on a refund every amount of the row is printed negative;
            // the tax is its size.
            let refund = row.amounts.allSatisfy { $0.value < 0 }
            let values = row.amounts.map { refund ? -$0.value : $0.value }.filter { $0 >= 0 }
            guard !values.isEmpty else { continue }
            let limit = total ?? values.max()!
            // What a tax at the row's rate may be charged on: an amount of the row, the total, a subtotal.
            let bases = values + (total.map { [$0] } ?? []) + subtotals
            // The tax among the row's amounts: one consistent with a base on the same row or the total.
            var chosen: Decimal? = nil
            var consistent = false
            if let rate, rate > 0 {
                outer: for v in values.sorted() where (total == nil || v < limit) && (cap == nil || v < cap!) {
                    for base in bases where base > v {
                        if isTax(v, of: base, rate: rate) {
                            chosen = v
                            consistent = true
                            break outer
                        }
                    }
                }
            }
            if chosen == nil, let rate, rate > 0, rate < 30, taxRates.count == 1,
               !(total.map { t in values.contains { v in subtotals.contains { TotalFinder.close($0 + v, t) } } } ?? false) {
                // "Gst 5% : 16,98" above "Grand Total 356.00": one digit of the tax misread; the
                // printed rate gives it from a base on the row, the total or the subtotal (when the
                // receipt prints one rate: with several, neither total is the base of one of them).
                var fixes: Set<Decimal> = []
                for v in values where v > 0 {
                    for base in bases where base > v {
                        for c in [base.tax(addedAt: rate), base.tax(includedAt: rate)]
                        where c > 0 && TotalFinder.differsInOneDigit(v, c) && (total == nil || c < limit) && (cap == nil || c < cap!) {
                            fixes.insert(c)
                        }
                    }
                }
                if fixes.count == 1 {
                    chosen = fixes.first
                    consistent = true
                }
            }
            if chosen == nil {
                let allowed = values.filter { (total == nil || $0 < limit) && (cap == nil || $0 < cap!) }
                // "INCL. VAT 6.00% 21.95": on a row saying the tax is included, an amount as large as
                // the total is the gross the tax is included in, not the tax.
                if allowed.isEmpty, values.count == 1, let rate, rate > 0, rate < 30, label.hasAny(AmountRole.inclusiveWords) {
                    let gross = values[0]
                    candidates.append(Candidate(value: gross.tax(includedAt: rate), rate: rate, summary: false,
                                                line: row.line.index, consistent: total.map { TotalFinder.close($0, gross) } ?? false))
                    continue
                }
                guard !allowed.isEmpty else { continue }
                chosen = values.count >= 2 && rate != nil ? allowed.min() : allowed.last
            }
            // "TOTAL TVA" over "19,72" with a total of 21.10: more than half the total is the net the
            // tax is charged on, and the tax is the total less it where the receipt prints that
            // alone on a row (not a band of a VAT table, whose net and gross add up the same way).
            if !consistent, row.amounts.count == 1, let total, let c = chosen, c * 2 > total, c < total,
               rows.contains(where: { r in
                   r.amounts.count == 1 && [.other, .tax].contains(r.role) && r.amounts[0].value > 0
                       && TotalFinder.close(r.amounts[0].value, total - c)
               }) {
                chosen = total - c
                consistent = true
            }
            if let total, let c = chosen, subtotals.contains(where: { TotalFinder.close($0 + c, total) }) { consistent = true }
            let summary = label.hasAny(["TOTAL TAX", "TAX TOTAL", "TOTAL GST", "GST TOTAL", "TOTAL VAT", "VAT TOTAL"])
            let repaired = row.amounts.first(where: { $0.value == chosen! })?.repaired ?? false
            candidates.append(Candidate(value: chosen!, rate: rate, summary: summary, line: row.line.index,
                                        consistent: consistent, repaired: repaired))
        }
        if let c = candidates.first(where: { $0.consistent }) {
            return TaxFinding(value: c.value, confidence: 0.85, computed: false)
        }
        // "FOOD TOTAL 105.00 / SVC CHG TOTAL 18.90 / TAX 5525 / TOTAL DUE 129.15": a tax read without
        // its decimal point and with one digit doubled; the total less the rows printed just above
        // it (subtotal, food total, service charge) gives it when its digits are the ones read,
        // one left out.
        if let total, let c = candidates.first(where: { $0.repaired }), c.value > 0,
           let at = rows.firstIndex(where: { $0.line.index == c.line }) {
            var sum: Decimal = 0
            var k = at - 1
            while k >= max(0, at - 3), rows[k].amounts.count == 1, rows[k].amounts[0].value > 0,
                  [.subtotal, .tip, .other].contains(rows[k].role) || (1..<12).contains(rows[k].role.totalStrength) {
                sum += rows[k].amounts[0].value
                let difference = total - sum
                if difference > 0, difference < c.value, TotalFinder.hasOneExtraDigit(c.value, comparedTo: difference) {
                    return TaxFinding(value: difference, confidence: 0.6, computed: true)
                }
                k -= 1
            }
        }
        // "Sub. Total: 9.96 / Tax: 9.90 / Total: 10.86": one digit of the tax misread; the total
        // less the subtotal gives it (when no tip, service charge or discount comes between).
        if let total, Set(subtotals).count == 1, !rows.contains(where: { $0.role == .tip || $0.role == .discount }), let s = subtotals.first, let c = candidates.first, c.value > 0 {
            let difference = total - s
            if difference > 0, difference < s * Decimal(string: "0.3")!, TotalFinder.differsInOneDigit(c.value, difference) {
                return TaxFinding(value: difference, confidence: 0.6, computed: true)
            }
        }
        if let c = candidates.first(where: { $0.summary }) {
            return TaxFinding(value: c.value, confidence: 0.7, computed: false)
        }
        // Several rates: one amount per distinct rate, summed.
        var perRate: [Decimal: Decimal] = [:]
        for c in candidates { if let r = c.rate, perRate[r] == nil { perRate[r] = c.value } }
        if perRate.count >= 2 {
            let sum = perRate.values.reduce(0, +)
            if total == nil || sum < total! {
                return TaxFinding(value: sum, confidence: 0.5, computed: false)
            }
        }
        // An amount read as printed beats one rebuilt from a number that lost its decimal point.
        if let first = candidates.first(where: { !$0.repaired }) ?? candidates.first {
            return TaxFinding(value: first.value, confidence: 0.6, computed: false)
        }
        if let inclusiveRate, let total {
            return TaxFinding(value: total.tax(includedAt: inclusiveRate),
                              confidence: 0.5, computed: true)
        }
        // "SUBTOTAL 8.51 / TAX ___ / TOTAL 8.51": the tax row is unreadable, but nothing was added.
        if unreadableTaxRow, inclusiveRate == nil, let total, total > 0, Set(subtotals) == [total] {
            return TaxFinding(value: 0, confidence: 0.4, computed: true)
        }
        // "Sub. Total: $6.55 / … / Visa $7.16": the tax row unreadable or lost, the subtotal and the
        // total read; what lies between them is the tax when nothing else (tip, discount, service
        // charge, rounding) is printed there. "Subtotal 59.97 / gtx 6.60 / Total 66.57": a row whose
        // label is unreadable (a few letters, no word a fee or deposit is printed with) and whose
        // amount is that difference is the tax row itself.
        if inclusiveRate == nil, let total, Set(subtotals).count == 1, let s = subtotals.first,
           !rows.contains(where: { [.tip, .discount, .rounding].contains($0.role) }),
           let first = rows.firstIndex(where: { $0.role == .subtotal }),
           case let to = rows[first...].dropFirst().firstIndex(where: { $0.role.totalStrength >= 7 || $0.amounts.contains { $0.value == total } }),
           let from = rows[first..<(to ?? rows.endIndex)].lastIndex(where: { $0.role == .subtotal }) {
            let difference = total - s
            // (When this pass lost the total's row, what follows the subtotal.)
            let between = rows[(from + 1)..<(to ?? rows.endIndex)].filter { !$0.amounts.isEmpty }
            let unreadableTaxRow = between.count == 1 && between[0].role == .other && between[0].amounts.count == 1
                && between[0].amounts[0].value == difference && between[0].label.compact.count <= 4
                && !between[0].label.hasAny(["BAG", "BAGS", "FEE", "TIP", "CRV", "DEP", "BTL"])
            if between.isEmpty && to != nil || unreadableTaxRow, difference >= Decimal(string: "0.05")!, difference <= s * Decimal(string: "0.25")! {
                return TaxFinding(value: difference, confidence: unreadableTaxRow ? 0.5 : 0.4, computed: !unreadableTaxRow)
            }
        }
        return nil
    }

    /// Tax labels with one letter misread: `SALES TAK` (the X of TAX), `TAXI` / `TAXL` alone on
    /// its row (the numbered `TAX1` of US tills, its 1 read as a letter; a taxi fare is never
    /// labelled with that word alone), and `VA` alone on its row.
    package static func misreadTaxLabel(_ label: LabelText) -> Bool {
        let words = label.words
        if words.count == 1, words[0] == "TAXI" || words[0] == "TAXL" { return true }
        // "VA $45.24": IVA or VAT with the letter at one end lost, alone on its row.
        if words == ["VA"] { return true }
        guard let i = words.firstIndex(of: "SALES"), i + 1 < words.count else { return false }
        let next = words[i + 1]
        return next.count == 3 && next.hasPrefix("TA") && next != "TAX"
    }

    /// "SR @ 6% 100.00 6.00" under the heading "GST Summary Amount Tax": a row of a tax table
    /// with no tax word of its own, taken when its rate gives one of its amounts from another.
    private static func taxTableRow(_ row: AmountLine, heading: AmountLine?, total: Decimal?) -> Candidate? {
        guard let heading, heading.label.hasAny(AmountRole.taxWords), heading.amounts.isEmpty || heading.borrowed,
              let rate = row.rate, rate > 0, rate < 30, row.role == .other, row.amounts.count >= 2 else { return nil }
        let values = row.amounts.map(\.value).filter { $0 > 0 }
        for v in values.sorted() where total == nil || v < total! {
            for base in values where base > v {
                if isTax(v, of: base, rate: rate) {
                    return Candidate(value: v, rate: rate, summary: false, line: row.line.index, consistent: true)
                }
            }
        }
        return nil
    }

    /// True when `v` is the tax at `rate` percent on `base`, added on top or included in it.
    package static func isTax(_ v: Decimal, of base: Decimal, rate: Decimal) -> Bool {
        TotalFinder.close(base.tax(addedAt: rate), v) || TotalFinder.close(base.tax(includedAt: rate), v)
    }

    /// "7.0% Boston $0.65" between "Subtotal $9.28" and "Total $9.93": a local sales tax printed
    /// with its rate and place but no tax word, taken when the rate gives the amount from the
    /// subtotal and subtotal plus amount is the total.
    private static func localTaxRow(_ row: AmountLine, subtotals: [Decimal], total: Decimal?) -> Candidate? {
        guard let rate = row.rate, rate > 0, rate < 30, row.role == .other, row.amounts.count == 1,
              let v = row.amounts.first?.value, v > 0, let total else { return nil }
        // "Service 10% 1.97": a service charge is added the same way, and is no tax. (Tips and
        // "SERVICE CHARGE" rows have the tip role already.)
        guard !row.label.hasAny(["SERVICE", "SVC", "SERV", "SERVIS"]) else { return nil }
        guard subtotals.contains(where: { s in
            TotalFinder.close(s.tax(addedAt: rate), v) && TotalFinder.close(s + v, total)
        }) else { return nil }
        return Candidate(value: v, rate: rate, summary: false, line: row.line.index, consistent: true)
    }
}

extension Decimal {
    /// The tax at `rate` percent added on top of this (net) amount, to the cent.
    package func tax(addedAt rate: Decimal) -> Decimal { (self * rate / 100).rounded(scale: 2) }

    /// The tax at `rate` percent included in this (gross) amount, to the cent.
    package func tax(includedAt rate: Decimal) -> Decimal { (self * rate / (100 + rate)).rounded(scale: 2) }
}
