import Foundation
import ReceiptModel

/// What one reading's printed amounts say of each other (issue 58): the candidates for the
/// subtotal, the tax (each rate's row, a VAT table's sum, several tax rows together), the tip, the
/// discounts, the amount tendered, the change, the items' sum and each rate's net and VAT, so that
/// the total and the tax are weighed as one assignment of roles that adds up:
///
/// - subtotal + tax (+ tip − discount) = total, where the tax is added;
/// - items' sum = total, or = subtotal;
/// - tendered − total = change;
/// - net + VAT = gross, per rate.
///
/// A value for the total or the tax is scored by how many of these hold with it and by whether
/// the printed amounts contradict it (`TotalArithmetic`, `TaxArithmetic`): features of the learned
/// choice, and the contradictions are what `analysis.review` names.
package struct ReceiptArithmetic: Sendable {
    package let subtotals: [Decimal]
    /// Each tax row's amounts, a VAT table's sum, and the tax rows of several rates together.
    package let taxes: [Decimal]
    package let tips: [Decimal]
    /// Their sizes (a discount may be printed negative).
    package let discounts: [Decimal]
    /// Cash tendered (cash rows).
    package let tendered: [Decimal]
    /// Change given, above 0.
    package let change: [Decimal]
    package let itemsSum: Decimal?
    /// Each rate's net and VAT, where a row with a rate prints an amount that is the tax at that
    /// rate on another of its amounts (`A 20% 229.46 45.89 275.35`).
    package let pairs: [(net: Decimal, tax: Decimal)]
    /// The rates printed on tax rows (0–30 %).
    package let taxRates: [Decimal]
    /// Every amount printed, above 0.
    package let amounts: Set<Decimal>

    package init(rows: [AmountLine], lineItems: [LineItem]) {
        func values(_ test: (AmountLine) -> Bool) -> [Decimal] { CandidateProposer.amounts(rows, test) }
        subtotals = values { $0.role == .subtotal }.filter { $0 > 0 }
        tips = values { $0.role == .tip }.filter { $0 > 0 }
        discounts = values { $0.role == .discount }.map { abs($0) }.filter { $0 > 0 }
        tendered = values { $0.role == .cash }.filter { $0 > 0 }
        change = values { $0.role == .change }.filter { $0 > 0 }
        let items = lineItems.compactMap(\.amount)
        itemsSum = items.isEmpty ? nil : items.reduce(0, +)
        amounts = Set(rows.flatMap { $0.amounts.map(\.value) }.filter { $0 > 0 })
        var pairs: [(net: Decimal, tax: Decimal)] = []
        for row in rows {
            guard let rate = row.rate, rate > 0, rate < 30, row.amounts.count >= 2 else { continue }
            let v = row.amounts.map(\.value).filter { $0 > 0 }
            for tax in v {
                for net in v where net > tax && TotalFinder.close(net.tax(addedAt: rate), tax) { pairs.append((net, tax)) }
                for gross in v where gross > tax && TotalFinder.close(gross.tax(includedAt: rate), tax) && !v.contains(gross - tax) {
                    pairs.append((gross - tax, tax))
                }
            }
        }
        self.pairs = pairs
        let taxRows = rows.filter { $0.role == .tax && !$0.amounts.isEmpty }
        taxRates = Array(Set(taxRows.compactMap(\.rate).filter { $0 > 0 && $0 < 30 }))
        var taxes = taxRows.flatMap { $0.amounts.map(\.value) }.filter { $0 >= 0 }
        // Several tax rows (`TAX1 0.52`, `TAX2 0.31`; a VAT row per rate): together the tax.
        let perRow = taxRows.compactMap { $0.amounts.last?.value }.filter { $0 > 0 }
        if perRow.count >= 2 { taxes.append(perRow.reduce(0, +)) }
        // A VAT table's rows: their taxes together.
        let tableTaxes = Set(pairs.map(\.tax))
        if tableTaxes.count >= 2 { taxes.append(tableTaxes.reduce(0, +)) }
        taxes += pairs.map(\.tax)
        var seen = Set<Decimal>()
        self.taxes = taxes.filter { seen.insert($0).inserted }
    }

    package init(_ reading: Reading) {
        self.init(rows: reading.rows, lineItems: reading.lineItems)
    }

    /// subtotal + tax (+ tip − discount) = `total` with some printed subtotal and tax (above 0),
    /// tip and discount (each 0 or printed).
    package func sumCloses(_ total: Decimal, tax: Decimal? = nil) -> Bool {
        let taxes = tax.map { [$0] } ?? self.taxes.filter { $0 > 0 }
        let tipOptions = [0] + tips, discountOptions = [0] + discounts
        for s in subtotals where s < total || !discounts.isEmpty {
            for t in taxes where t > 0 {
                for tip in tipOptions {
                    for d in discountOptions where TotalFinder.close(s + t + tip - d, total) { return true }
                }
            }
        }
        return false
    }

    /// The items add up to `total`, or to a subtotal the arithmetic takes to it (or that equals it).
    package func itemsClose(_ total: Decimal) -> Bool {
        guard let itemsSum, itemsSum > 0 else { return false }
        if TotalFinder.close(itemsSum, total) { return true }
        return subtotals.contains { TotalFinder.close($0, itemsSum) } && sumCloses(total)
    }

    /// tendered − `total` = change, for some printed amounts tendered and change.
    package func tenderCloses(_ total: Decimal) -> Bool {
        tendered.contains { c in change.contains { TotalFinder.close(c - total, $0) } }
    }

    /// A net and its VAT printed per rate add up to `total` (several rates' together too).
    package func netAndTaxClose(_ total: Decimal) -> Bool {
        if pairs.contains(where: { TotalFinder.close($0.net + $0.tax, total) }) { return true }
        guard pairs.count >= 2 else { return false }
        var seen = Set<Decimal>(), sum: Decimal = 0
        for p in pairs where seen.insert(p.tax).inserted { sum += p.net + p.tax }
        return TotalFinder.close(sum, total)
    }

    /// `value` is cash tendered, not the total: printed as tendered, with change given and what it
    /// leaves (`value` − change) printed too or the items' sum (`CASH 20.00 / CHANGE 2.30` under
    /// items of 9.00 and 8.70).
    package func isTendered(_ value: Decimal) -> Bool {
        tendered.contains(value) && change.contains { ch in
            let rest = value - ch
            return rest > 0 && (amounts.contains(rest) || itemsSum.map { TotalFinder.close($0, rest) } ?? false)
        }
    }

    /// How many of the relations hold with `total` as the total (0–4).
    package func support(_ total: Decimal) -> Int {
        [sumCloses(total), itemsClose(total), tenderCloses(total), netAndTaxClose(total)].filter { $0 }.count
    }

    /// The amounts the relations take to a total by themselves: cash less change, subtotal plus tax.
    package var implied: [Decimal] {
        var out: [Decimal] = []
        for c in tendered { for ch in change where c - ch > 0 { out.append(c - ch) } }
        return out
    }

    // MARK: - The tax

    /// subtotal + `tax` (+ tip − discount) = `total`.
    package func taxClosesSum(_ tax: Decimal, total: Decimal) -> Bool {
        tax > 0 && sumCloses(total, tax: tax)
    }

    /// `tax` is the smaller of two printed amounts that add up to the total: the VAT beside its net.
    package func taxBesideNet(_ tax: Decimal, total: Decimal) -> Bool {
        tax > 0 && amounts.contains { $0 > tax && TotalFinder.close($0 + tax, total) }
    }

    /// `tax` is the larger of two printed amounts that add up to the total: the net beside its VAT
    /// (a garage bill of 275.35: 229.46 is the net, 45.89 the VAT).
    package func taxIsNet(_ tax: Decimal, total: Decimal) -> Bool {
        tax > 0 && amounts.contains { $0 > 0 && $0 < tax && TotalFinder.close($0 + tax, total) }
            || subtotals.contains { s in s < total && TotalFinder.close(s, tax) }
    }

    /// A rate printed on the tax rows gives another printed amount from the total or a subtotal,
    /// and none gives `tax` from any base: the printed rate says the tax is that other amount.
    package func rateContradicts(_ tax: Decimal, total: Decimal) -> Bool {
        guard !taxRates.isEmpty, tax > 0 else { return false }
        let bases = Set(subtotals + [total] + pairs.map(\.net) + amounts.filter { $0 > tax })
        let explains = { (v: Decimal, bases: Set<Decimal>) in
            taxRates.contains { r in bases.contains { b in b != v && TaxFinder.isTax(v, of: b, rate: r) } }
        }
        if explains(tax, bases) { return false }
        if taxRates.count >= 2, taxes.contains(where: { TotalFinder.close($0, tax) }) { return false }
        let strong = Set(subtotals + [total])
        return amounts.contains { $0 != tax && $0 < total && explains($0, strong) }
    }
}

/// What the arithmetic says of one amount as the total.
package struct TotalArithmetic: Sendable {
    package let support: Int
    /// The most support any candidate of the receipt has.
    package let best: Int
    package let isTendered: Bool

    package init(_ value: Decimal, _ arithmetic: ReceiptArithmetic, best: Int) {
        support = arithmetic.support(value)
        self.best = max(best, support)
        isTendered = arithmetic.isTendered(value)
    }

    /// The printed amounts contradict it: it is cash tendered, or two relations or more close on
    /// another amount and none on it.
    package var contradicted: Bool { isTendered || best >= 2 && support == 0 }
}

/// What the arithmetic and the country's rates say of one amount as the tax.
package struct TaxArithmetic: Sendable {
    package let closesSum: Bool
    package let besideNet: Bool
    package let isNet: Bool
    package let aboveCeiling: Bool
    package let equalsTotal: Bool
    package let rateContradicts: Bool

    package init(_ value: Decimal, _ arithmetic: ReceiptArithmetic, total: Decimal?, currency: String?) {
        guard let total, total > 0 else {
            (closesSum, besideNet, isNet, aboveCeiling, equalsTotal, rateContradicts) = (false, false, false, false, false, false)
            return
        }
        closesSum = arithmetic.taxClosesSum(value, total: total)
        besideNet = arithmetic.taxBesideNet(value, total: total)
        isNet = arithmetic.taxIsNet(value, total: total)
        aboveCeiling = TaxCeilings.exceeds(value, total: total, currency: currency)
        equalsTotal = value > 0 && TotalFinder.close(value, total)
        rateContradicts = arithmetic.rateContradicts(value, total: total)
    }

    /// Not a tax the receipt can carry: above its country's ceiling, the total itself, the net, or
    /// not what the printed rate gives where it gives another printed amount.
    package var implausible: Bool { aboveCeiling || equalsTotal || isNet || rateContradicts }
}
