import Foundation
import ReceiptModel

package struct TaxFinding: Sendable, Equatable {
    package var value: Decimal
    package var confidence: Double
    /// True when computed from a printed rate and the total (nothing printed as the tax amount).
    package var computed: Bool
    /// True when it sums a VAT table's rows of several rates (`taxTable`): no one amount of those
    /// rows is the tax.
    package var ofSeveralRates = false
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
        var ofSeveralRates = false
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

    /// The rest of the receipt: what a tax is checked against.
    private struct Context {
        let rows: [AmountLine]
        let total: Decimal?
        let subtotals: [Decimal]
        /// Tax is a fraction of what it is charged on: never as much as the subtotal.
        let cap: Decimal?
        /// The rates printed on tax rows with an amount.
        let taxRates: Set<Decimal>

        init(_ rows: [AmountLine], total: Decimal?) {
            self.rows = rows
            self.total = total
            subtotals = rows.filter { $0.role == .subtotal }.compactMap { $0.amounts.last?.value }
            cap = subtotals.filter { $0 > 0 }.max()
            taxRates = Set(rows.filter { $0.role == .tax && !$0.amounts.isEmpty }.compactMap(\.rate))
        }

        /// Below the total and the subtotal (when read): what a tax must be.
        func allows(_ v: Decimal) -> Bool { (total == nil || v < total!) && (cap == nil || v < cap!) }
    }

    /// What the rows say about the tax: the amounts read as tax, in row order, and what the rows
    /// without a readable amount tell.
    private struct TaxRows {
        var candidates: [Candidate] = []
        /// A rate the tax is included at ("TOTAL INCL. GST 6% 9.00").
        var inclusiveRate: Decimal? = nil
        /// A tax row whose amount could not be read.
        var unreadableTaxRow = false
    }

    /// The tax the rows support best: the rows read (`read`), then the first of `choices` that
    /// gives a finding.
    private static func bestReading(_ rows: [AmountLine], total: Decimal?) -> TaxFinding? {
        let context = Context(rows, total: total)
        let taxRows = read(context)
        for choice in choices {
            if let finding = choice(taxRows, context) { return finding }
        }
        return nil
    }

    // MARK: - Reading the rows

    /// Every row's contribution to the tax, in order.
    private static func read(_ context: Context) -> TaxRows {
        var taxRows = TaxRows()
        let rows = context.rows
        for (index, row) in rows.enumerated() {
            if let table = taxTable(under: index, rows) { taxRows.candidates.append(table) }
            let label = row.label
            let isTaxRow = label.hasAny(AmountRole.taxWords) || label.compact.hasSuffix("TAX") || misreadTaxLabel(label)
            guard isTaxRow else {
                if let c = localTaxRow(row, subtotals: context.subtotals, total: context.total)
                    ?? taxTableRow(row, heading: index > 0 ? rows[index - 1] : nil, total: context.total) {
                    taxRows.candidates.append(c)
                }
                continue
            }
            guard !label.hasAny(notAmounts) || !row.amounts.isEmpty && !label.has("TAX INVOICE") else { continue }
            if !row.amounts.isEmpty, row.amounts.allSatisfy(\.repaired), guestCount.matches(row.line.text) { continue }
            if row.amounts.isEmpty {
                readTaxRowWithoutAmount(at: index, context, into: &taxRows)
            } else if row.role.totalStrength >= 7 {
                // "TOTAL INCL. GST 6% 9.00": the amount is the total; remember the rate.
                if let rate = row.rate, rate > 0, rate < 30 { taxRows.inclusiveRate = rate }
                if let c = includedTaxUnderTotal(row, context) { taxRows.candidates.append(c) }
            } else if let c = taxAmongAmounts(row, context) {
                taxRows.candidates.append(c)
            }
        }
        return taxRows
    }

    /// A tax row without a readable amount: the rate the tax is included at, a tax of 0 with its
    /// decimal point lost, or an unreadable tax amount.
    private static func readTaxRowWithoutAmount(at index: Int, _ context: Context, into taxRows: inout TaxRows) {
        let row = context.rows[index], label = row.label
        if let rate = row.rate, rate > 0, rate < 30, label.hasAny(AmountRole.inclusiveWords) { taxRows.inclusiveRate = rate }
        if let rate = rateOfTaxTableBelow(heading: index, context.rows) { taxRows.inclusiveRate = taxRows.inclusiveRate ?? rate }
        if let zero = zeroTax(row) {
            taxRows.candidates.append(zero)
        } else if !label.hasAny(notAmounts) && !label.hasAny(AmountRole.inclusiveWords) && row.role == .tax {
            taxRows.unreadableTaxRow = true
        }
    }

    /// "GST -- Rate -- Before GST -- GST Amt" over "7% …" whose amounts are unreadable: a tax
    /// table splits the total into net and tax, so the tax is included at that rate.
    private static func rateOfTaxTableBelow(heading index: Int, _ rows: [AmountLine]) -> Decimal? {
        guard rows[index].label.has("RATE"), index + 1 < rows.count, rows[index + 1].role == .other,
              let rate = rows[index + 1].rate, rate > 0, rate < 30 else { return nil }
        return rate
    }

    /// "TOTAL TAX 00", "TAX 0": no tax, its decimal point lost.
    private static func zeroTax(_ row: AmountLine) -> Candidate? {
        guard let last = row.line.text.split(whereSeparator: \.isWhitespace).last, last.count <= 2,
              last.allSatisfy({ $0 == "0" }), !row.label.hasAny(notAmounts) else { return nil }
        return Candidate(value: 0, rate: nil, summary: false, line: row.line.index, consistent: false)
    }

    /// "GST included in total $6.33" under "TOTAL $69.60": a row naming the tax as included
    /// whose amount is a fraction of the total is the tax, not the total.
    private static func includedTaxUnderTotal(_ row: AmountLine, _ context: Context) -> Candidate? {
        guard row.label.hasAny(AmountRole.inclusiveWords), let total = context.total, row.amounts.count == 1,
              let v = row.amounts.first?.value, v > 0, v * 4 < total else { return nil }
        let consistent = row.rate.map { TotalFinder.close(total.tax(includedAt: $0), v) } ?? false
        return Candidate(value: v, rate: row.rate, summary: false, line: row.line.index, consistent: consistent)
    }

    /// The tax among a tax row's amounts: one its rate gives from a base (`taxOfABase`), else one
    /// with a digit misread (`oneDigitFromRate`), else the gross a tax is included in
    /// (`taxIncludedInGross`), else the amount as printed (`printedAmount`); then checked against
    /// the net printed alone (`totalLessNet`) and against subtotal + tax = total.
    private static func taxAmongAmounts(_ row: AmountLine, _ context: Context) -> Candidate? {
        // "101.97-@ 6.75% TAX 6.88-": on a refund every amount of the row is printed negative;
        // the tax is its size.
        let refund = row.amounts.allSatisfy { $0.value < 0 }
        let values = row.amounts.map { refund ? -$0.value : $0.value }.filter { $0 >= 0 }
        guard !values.isEmpty else { return nil }
        var chosen: Decimal
        var consistent: Bool
        if let c = taxOfABase(values, rate: row.rate, context) ?? oneDigitFromRate(values, rate: row.rate, context) {
            chosen = c
            consistent = true
        } else if let gross = taxIncludedInGross(row, values: values, context) {
            return gross
        } else if let c = printedAmount(values, rate: row.rate, context) {
            chosen = c
            consistent = false
        } else {
            return nil
        }
        if !consistent, row.amounts.count == 1, let c = totalLessNet(chosen, context) {
            chosen = c
            consistent = true
        }
        if let total = context.total, context.subtotals.contains(where: { TotalFinder.close($0 + chosen, total) }) { consistent = true }
        let summary = row.label.hasAny(["TOTAL TAX", "TAX TOTAL", "TOTAL GST", "GST TOTAL", "TOTAL VAT", "VAT TOTAL"])
        let repaired = row.amounts.first(where: { $0.value == chosen })?.repaired ?? false
        return Candidate(value: chosen, rate: row.rate, summary: summary, line: row.line.index,
                         consistent: consistent, repaired: repaired)
    }

    /// What a tax at the row's rate may be charged on: an amount of the row, the total, a subtotal.
    private static func taxBases(_ values: [Decimal], _ context: Context) -> [Decimal] {
        values + (context.total.map { [$0] } ?? []) + context.subtotals
    }

    /// The tax among the row's amounts: one consistent with a base on the same row or the total
    /// (`taxBases`: a subtotal too), the smallest such.
    private static func taxOfABase(_ values: [Decimal], rate: Decimal?, _ context: Context) -> Decimal? {
        guard let rate, rate > 0 else { return nil }
        let bases = taxBases(values, context)
        return values.sorted().first { v in context.allows(v) && bases.contains { base in base > v && isTax(v, of: base, rate: rate) } }
    }

    /// "Gst 5% : 16,98" above "Grand Total 356.00": one digit of the tax misread; the printed
    /// rate gives it from a base on the row, the total or the subtotal (when the context prints
    /// one rate: with several, neither total is the base of one of them), and when the row's
    /// amount plus a subtotal is not the total already.
    private static func oneDigitFromRate(_ values: [Decimal], rate: Decimal?, _ context: Context) -> Decimal? {
        guard let rate, rate > 0, rate < 30, context.taxRates.count == 1,
              !(context.total.map { t in values.contains { v in context.subtotals.contains { TotalFinder.close($0 + v, t) } } } ?? false)
        else { return nil }
        let bases = taxBases(values, context)
        var fixes: Set<Decimal> = []
        for v in values where v > 0 {
            for base in bases where base > v {
                for c in [base.tax(addedAt: rate), base.tax(includedAt: rate)]
                where c > 0 && TotalFinder.differsInOneDigit(v, c) && context.allows(c) {
                    fixes.insert(c)
                }
            }
        }
        return fixes.count == 1 ? fixes.first : nil
    }

    /// "INCL. VAT 6.00% 21.95": on a row saying the tax is included, an amount as large as the
    /// total is the gross the tax is included in, not the tax.
    private static func taxIncludedInGross(_ row: AmountLine, values: [Decimal], _ context: Context) -> Candidate? {
        guard !values.contains(where: context.allows), values.count == 1, let rate = row.rate, rate > 0, rate < 30,
              row.label.hasAny(AmountRole.inclusiveWords) else { return nil }
        let gross = values[0]
        return Candidate(value: gross.tax(includedAt: rate), rate: rate, summary: false, line: row.line.index,
                         consistent: context.total.map { TotalFinder.close($0, gross) } ?? false)
    }

    /// The amount as printed, below the total and subtotal: the smallest of several beside a rate,
    /// else the last.
    private static func printedAmount(_ values: [Decimal], rate: Decimal?, _ context: Context) -> Decimal? {
        let allowed = values.filter(context.allows)
        guard !allowed.isEmpty else { return nil }
        return values.count >= 2 && rate != nil ? allowed.min() : allowed.last
    }

    /// "TOTAL TVA" over "19,72" with a total of 21.10: more than half the total is the net the
    /// tax is charged on, and the tax is the total less it where the context prints that
    /// alone on a row (not a band of a VAT table, whose net and gross add up the same way).
    private static func totalLessNet(_ net: Decimal, _ context: Context) -> Decimal? {
        guard let total = context.total, net * 2 > total, net < total,
              context.rows.contains(where: { r in
                  r.amounts.count == 1 && [.other, .tax].contains(r.role) && r.amounts[0].value > 0
                      && TotalFinder.close(r.amounts[0].value, total - net)
              }) else { return nil }
        return total - net
    }

    // MARK: - Choosing the tax

    /// The ways to the tax from what the rows gave, most trusted first.
    private static let choices: [@Sendable (TaxRows, Context) -> TaxFinding?] = [
        consistentAmount, doubledDigitTax, totalLessSubtotalMisread, summaryRow, oneAmountPerRate, firstAmount,
        includedAtRate, nothingAdded, betweenSubtotalAndTotal,
    ]

    /// The first amount the arithmetic confirms.
    private static func consistentAmount(_ taxRows: TaxRows, _ context: Context) -> TaxFinding? {
        guard let c = taxRows.candidates.first(where: { $0.consistent }) else { return nil }
        return TaxFinding(value: c.value, confidence: 0.85, computed: false, ofSeveralRates: c.ofSeveralRates)
    }

    /// "FOOD TOTAL 105.00 / SVC CHG TOTAL 18.90 / TAX 5525 / TOTAL DUE 129.15": a tax read without
    /// its decimal point and with one digit doubled; the total less the rows printed just above
    /// it (subtotal, food total, service charge) gives it when its digits are the ones read,
    /// one left out.
    private static func doubledDigitTax(_ taxRows: TaxRows, _ context: Context) -> TaxFinding? {
        let rows = context.rows
        guard let total = context.total, let c = taxRows.candidates.first(where: { $0.repaired }), c.value > 0,
              let at = rows.firstIndex(where: { $0.line.index == c.line }) else { return nil }
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
        return nil
    }

    /// "Sub. Total: 9.96 / Tax: 9.90 / Total: 10.86": one digit of the tax misread; the total
    /// less the subtotal gives it (when no tip, service charge or discount comes between).
    private static func totalLessSubtotalMisread(_ taxRows: TaxRows, _ context: Context) -> TaxFinding? {
        guard let total = context.total, Set(context.subtotals).count == 1,
              !context.rows.contains(where: { $0.role == .tip || $0.role == .discount }), let s = context.subtotals.first,
              let c = taxRows.candidates.first, c.value > 0 else { return nil }
        let difference = total - s
        guard difference > 0, difference < s * Decimal(string: "0.3")!, TotalFinder.differsInOneDigit(c.value, difference) else { return nil }
        return TaxFinding(value: difference, confidence: 0.6, computed: true)
    }

    /// A row labelled as the tax total ("TOTAL TAX", "GST TOTAL").
    private static func summaryRow(_ taxRows: TaxRows, _ context: Context) -> TaxFinding? {
        guard let c = taxRows.candidates.first(where: { $0.summary }) else { return nil }
        return TaxFinding(value: c.value, confidence: 0.7, computed: false)
    }

    /// Several rates: one amount per distinct rate, summed (when the sum stays below the total).
    private static func oneAmountPerRate(_ taxRows: TaxRows, _ context: Context) -> TaxFinding? {
        var perRate: [Decimal: Decimal] = [:]
        for c in taxRows.candidates { if let r = c.rate, perRate[r] == nil { perRate[r] = c.value } }
        guard perRate.count >= 2 else { return nil }
        let sum = perRate.values.reduce(0, +)
        guard context.total == nil || sum < context.total! else { return nil }
        return TaxFinding(value: sum, confidence: 0.5, computed: false)
    }

    /// The first amount read. An amount read as printed beats one rebuilt from a number that
    /// lost its decimal point.
    private static func firstAmount(_ taxRows: TaxRows, _ context: Context) -> TaxFinding? {
        guard let first = taxRows.candidates.first(where: { !$0.repaired }) ?? taxRows.candidates.first else { return nil }
        return TaxFinding(value: first.value, confidence: 0.6, computed: false)
    }

    /// No amount read, but a rate the tax is included in the total at.
    private static func includedAtRate(_ taxRows: TaxRows, _ context: Context) -> TaxFinding? {
        guard let rate = taxRows.inclusiveRate, let total = context.total else { return nil }
        return TaxFinding(value: total.tax(includedAt: rate), confidence: 0.5, computed: true)
    }

    /// "SUBTOTAL 8.51 / TAX ___ / TOTAL 8.51": the tax row is unreadable, but nothing was added.
    private static func nothingAdded(_ taxRows: TaxRows, _ context: Context) -> TaxFinding? {
        guard taxRows.unreadableTaxRow, taxRows.inclusiveRate == nil, let total = context.total, total > 0,
              Set(context.subtotals) == [total] else { return nil }
        return TaxFinding(value: 0, confidence: 0.4, computed: true)
    }

    /// "Sub. Total: $6.55 / … / Visa $7.16": the tax row unreadable or lost, the subtotal and the
    /// total read; what lies between them is the tax when nothing else (tip, discount, service
    /// charge, rounding) is printed there. "Subtotal 59.97 / gtx 6.60 / Total 66.57": a row whose
    /// label is unreadable (a few letters, no word a fee or deposit is printed with) and whose
    /// amount is that difference is the tax row itself.
    private static func betweenSubtotalAndTotal(_ taxRows: TaxRows, _ context: Context) -> TaxFinding? {
        let rows = context.rows
        guard taxRows.inclusiveRate == nil, let total = context.total, Set(context.subtotals).count == 1, let s = context.subtotals.first,
              !rows.contains(where: { [.tip, .discount, .rounding].contains($0.role) }),
              let first = rows.firstIndex(where: { $0.role == .subtotal }),
              case let to = rows[first...].dropFirst().firstIndex(where: { $0.role.totalStrength >= 7 || $0.amounts.contains { $0.value == total } }),
              let from = rows[first..<(to ?? rows.endIndex)].lastIndex(where: { $0.role == .subtotal }) else { return nil }
        let difference = total - s
        // (When this pass lost the total's row, what follows the subtotal.)
        let between = rows[(from + 1)..<(to ?? rows.endIndex)].filter { !$0.amounts.isEmpty }
        let unreadableTaxRow = between.count == 1 && between[0].role == .other && between[0].amounts.count == 1
            && between[0].amounts[0].value == difference && between[0].label.compact.count <= 4
            && !between[0].label.hasAny(["BAG", "BAGS", "FEE", "TIP", "CRV", "DEP", "BTL"])
        guard between.isEmpty && to != nil || unreadableTaxRow, difference >= Decimal(string: "0.05")!,
              difference <= s * Decimal(string: "0.25")! else { return nil }
        return TaxFinding(value: difference, confidence: unreadableTaxRow ? 0.5 : 0.4, computed: !unreadableTaxRow)
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

    /// A VAT table: under a heading that names the tax (`MwSt-Satz Netto MwSt Brutto`, `VAT
    /// analysis`), one row per rate (`A 19,0% 38,39 7,29 45,68`, `O 0.00% 54.85 0.00`), each with
    /// the tax at its rate on another of its amounts. The tax is the sum of the rows' (a 0 % row adds
    /// nothing); a table needs a rate above 0. A row whose printed tax does not fit (a digit misread)
    /// takes its gross less its net when that is the tax at its rate (`19% 12,41 7,36 14,77`: 2,36).
    private static func taxTable(under heading: Int, _ rows: [AmountLine]) -> Candidate? {
        let head = rows[heading]
        guard head.label.hasAny(AmountRole.taxWords), head.amounts.isEmpty || head.borrowed, head.rate == nil else { return nil }
        var sum: Decimal = 0, rates: [Decimal] = []
        var j = heading + 1
        while j < rows.count, let rate = rows[j].rate, rate >= 0, rate < 30, rows[j].amounts.count >= 2,
              [.other, .tax].contains(rows[j].role) {
            guard let tax = taxOfTableRow(rows[j].amounts.map(\.value), rate: rate) else { return nil }
            sum += tax
            rates.append(rate)
            j += 1
        }
        guard rates.contains(where: { $0 > 0 }) else { return nil }
        return Candidate(value: sum, rate: rates.count == 1 ? rates[0] : nil, summary: rates.count > 1,
                         line: head.line.index, consistent: true, ofSeveralRates: rates.count > 1)
    }

    /// The tax of one row of a VAT table at `rate`: an amount that is the tax on another, or the
    /// gross less the net where that is.
    private static func taxOfTableRow(_ values: [Decimal], rate: Decimal) -> Decimal? {
        if rate == 0 { return values.contains(0) ? 0 : nil }
        if let v = values.sorted().first(where: { v in v > 0 && values.contains { $0 > v && isTax(v, of: $0, rate: rate) } }) {
            return v
        }
        guard values.count >= 3 else { return nil }
        for net in values where net > 0 {
            for gross in values where gross > net && TotalFinder.close(gross - net, net.tax(addedAt: rate)) { return gross - net }
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
