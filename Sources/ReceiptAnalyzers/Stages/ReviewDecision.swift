import Foundation
import ReceiptModel

/// Whether a person should look at a receipt: the one place `needsReview` is decided.
package enum ReviewDecision {
    /// A receipt is flagged when its total, date or vendor is missing, when its tax is not less
    /// than its total, and otherwise by the learned model's thresholds (its total or date less
    /// likely right than chosen on held-out folds) or, when the rules decided, by their confidence
    /// (total below 0.6, date below 0.5).
    package static func needsReview(_ choice: Choice) -> Bool {
        guard let total = choice.total, choice.date != nil, choice.vendor != nil else { return true }
        if let tax = choice.tax, tax >= total { return true }
        if let flagged = choice.flaggedByModel { return flagged }
        return choice.confidence.total < 0.6 || choice.confidence.date < 0.5
    }
}
