import Foundation
import ReceiptModel

/// What a receipt's amounts say of its tax, shared by all its tax candidates.
struct TaxContext {
    let rows: [AmountLine]
    /// The rules' tax.
    let pick: TaxFinding?
    /// The chosen total.
    let total: Decimal?
    let lastIndex: Int
    let values: [Decimal]
    let largest: Decimal
    /// Printed rates under 30 %.
    let rates: [Decimal]
    let subtotals: [Decimal]
    /// Amounts a rate may apply to: subtotals, the total, amounts on a rate's row.
    let bases: Set<Decimal>
    /// The rates the country of the receipt's currency charges (`StandardTaxRates`).
    let standardRates: [Decimal]
    /// What the printed amounts say of each other, and the receipt's currency (its ceiling).
    let arithmetic: ReceiptArithmetic
    let currency: String?
}

/// One amount as a candidate for the tax.
struct TaxEvidence {
    let value: Decimal
    let receipt: TaxContext
    let place: Placement

    var isPick: Bool { receipt.pick?.value == value }

    /// A printed rate explains it: `rate × base`, or the tax inside a gross amount,
    /// `gross × rate / (100 + rate)`.
    var rateFits: Bool {
        receipt.rates.contains { rate in
            receipt.bases.contains { base in base != value && StandardTaxRates.explains(value, rate: rate, base: base) }
        }
    }

    /// A rate the country of the receipt's currency charges explains it on the total, or on the
    /// total less it (the net).
    var standardRate: Bool {
        guard let total = receipt.total, value > 0, value < total else { return false }
        return receipt.standardRates.contains { rate in
            StandardTaxRates.explains(value, rate: rate, base: total) || abs((total - value) * rate / 100 - value) <= 0.011
        }
    }
}

extension CandidateProposer {
    static let taxFeatures: [Feature<TaxEvidence>] = [
        Feature("rulesPick") { $0.isPick.feature },
        Feature("rulesConfidence") { $0.isPick ? $0.receipt.pick?.confidence ?? 0 : 0 },
        Feature("rulesComputed") { ($0.isPick && $0.receipt.pick?.computed == true).feature },
        Feature("onTaxRow") { $0.place.on { $0.role == .tax } },
        Feature("rateOnRow") { $0.place.on { $0.rate != nil } },
        Feature("percentOnRow") { $0.place.on { $0.line.text.contains("%") } },
        Feature("rateFits") { $0.rateFits.feature },
        Feature("standardRate") { $0.standardRate.feature },
        Feature("totalLessSubtotal") { e in
            (e.receipt.total.map { t in e.receipt.subtotals.contains { $0 > 0 && t - $0 == e.value } } ?? false).feature
        },
        Feature("shareOfTotal") { e in
            e.receipt.total.map { t in t > 0 ? min(1.5, NSDecimalNumber(decimal: e.value / t).doubleValue) : 0 } ?? 0
        },
        Feature("belowTotal") { e in e.receipt.total.map { e.value < $0 ? 1 : 0 } ?? 0 },
        Feature("onTotalRow") { $0.place.on { $0.role.totalStrength > 0 } },
        Feature("onSubtotalRow") { $0.place.on { $0.role == .subtotal } },
        Feature("onPaymentRow") { $0.place.on { $0.role.isPayment } },
        Feature("onOtherRow") { $0.place.on { $0.role == .other } },
        Feature("occurrences") { $0.place.occurrences },
        Feature("isLargest") { ($0.value == $0.receipt.largest).feature },
        Feature("fromBottom") { $0.place.fromBottom },
        Feature("fromTop") { $0.place.fromTop },
        Feature("readConfidence") { $0.place.readConfidence },
        Feature("amounts") { log1p(Double($0.receipt.values.count)) },
    ] + arithmeticTaxFeatures

    /// Every amount for the tax, with the rules' finding (`finding`) and the chosen total: how its
    /// row is labelled, whether a printed rate explains it (the base a subtotal, the total or an
    /// amount on a rate's row) or a rate of the currency's country does, total less subtotal, its
    /// share of the total.
    /// `currency`: the receipt's, when known (its country's rates, `standardRate`).
    package static func taxes(_ reading: Reading, finding: TaxFinding?, total: Decimal?, currency: String? = nil) -> [Candidate] {
        let rows = reading.rows
        var values: [Decimal] = []
        // Zero only where a tax row prints it (`TAX 0.00`): a receipt can say it charged none.
        for row in rows {
            for token in row.amounts where (token.value > 0 || row.role == .tax && token.value == 0) && !values.contains(token.value) {
                values.append(token.value)
            }
        }
        if let finding, finding.value >= 0, !values.contains(finding.value) { values.append(finding.value) }
        // Several tax rows, a VAT table's rows: their sum, printed or not (issue 58).
        let arithmetic = ReceiptArithmetic(reading)
        for sum in arithmetic.taxes where sum > 0 && !values.contains(sum) && total.map({ sum < $0 }) ?? true { values.append(sum) }
        guard let largest = values.max() else { return [] }
        let subtotals = amounts(rows) { $0.role == .subtotal }
        let receipt = TaxContext(
            rows: rows, pick: finding, total: total, lastIndex: max(1, reading.document.lines.last?.index ?? 1),
            values: values, largest: largest, rates: rows.compactMap(\.rate).filter { $0 > 0 && $0 < 30 },
            subtotals: subtotals, bases: Set(subtotals + [total].compactMap { $0 } + amounts(rows) { $0.rate != nil }),
            standardRates: StandardTaxRates.rates(currency: currency), arithmetic: arithmetic, currency: currency)
        return values.map { value in
            let evidence = TaxEvidence(value: value, receipt: receipt, place: Placement(value, rows: rows, lastIndex: receipt.lastIndex))
            return Candidate(field: .tax, value: value.moneyString, features: taxFeatures.values(evidence))
        }
    }
}
