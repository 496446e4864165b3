import Foundation
import ReceiptModel

/// The features of issue 58: how well a value for the total or the tax fits one assignment of the
/// printed amounts' roles that adds up (`ReceiptArithmetic`), and whether the printed amounts
/// contradict it. A block of their own, after each field's other features.
extension CandidateProposer {
    static let arithmeticTotalFeatures: [Feature<TotalEvidence>] = [
        Feature("arith.sumCloses") { $0.receipt.arithmetic.sumCloses($0.value).feature },
        Feature("arith.itemsClose") { $0.receipt.arithmetic.itemsClose($0.value).feature },
        Feature("arith.tenderCloses") { $0.receipt.arithmetic.tenderCloses($0.value).feature },
        Feature("arith.netAndTaxClose") { $0.receipt.arithmetic.netAndTaxClose($0.value).feature },
        // How many of the four relations hold with it, and whether no other amount has more.
        Feature("arith.support") { Double($0.arithmetic.support) / 4 },
        Feature("arith.bestSupport") { ($0.arithmetic.best > 0 && $0.arithmetic.support == $0.arithmetic.best).feature },
        Feature("arith.tendered") { $0.arithmetic.isTendered.feature },
        Feature("arith.contradicted") { $0.arithmetic.contradicted.feature },
        Feature("arith.printed") { (!$0.place.rows.isEmpty).feature },
    ]

    static let arithmeticTaxFeatures: [Feature<TaxEvidence>] = [
        Feature("arith.closesSum") { $0.arithmetic.closesSum.feature },
        Feature("arith.besideNet") { $0.arithmetic.besideNet.feature },
        Feature("arith.isNet") { $0.arithmetic.isNet.feature },
        Feature("arith.aboveCeiling") { $0.arithmetic.aboveCeiling.feature },
        Feature("arith.equalsTotal") { $0.arithmetic.equalsTotal.feature },
        Feature("arith.rateContradicts") { $0.arithmetic.rateContradicts.feature },
        Feature("arith.implausible") { $0.arithmetic.implausible.feature },
        // A sum of several tax rows or of a VAT table's rows, or one rate's VAT beside its net.
        Feature("arith.sumOfTaxes") { e in (e.place.rows.isEmpty && e.receipt.arithmetic.taxes.contains(e.value)).feature },
        Feature("arith.ratePair") { e in e.receipt.arithmetic.pairs.contains { $0.tax == e.value }.feature },
    ]

    /// The features that name a field in `analysis.review` when its chosen value has one of them:
    /// the printed amounts contradict it.
    package static let contradictionFeatures: [LearnedField: [String]] = [
        .total: ["arith.contradicted"],
        .tax: ["arith.implausible"],
    ]
}

extension TotalEvidence {
    var arithmetic: TotalArithmetic { TotalArithmetic(value, receipt.arithmetic, best: receipt.bestSupport) }
}

extension TaxEvidence {
    var arithmetic: TaxArithmetic { TaxArithmetic(value, receipt.arithmetic, total: receipt.total, currency: receipt.currency) }
}
