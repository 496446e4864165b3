import Foundation
import ReceiptModel

/// Whether a person should look at a receipt, and at which fields: the one place `needsReview`
/// and `review` are decided.
package enum ReviewDecision {
    /// The fields to look at (`ReceiptAnalysis.review`):
    /// - a missing total, date or vendor;
    /// - a tax not less than the total;
    /// - with the learned model, a total, date or tax less likely right than its threshold (chosen
    ///   on held-out folds; the tax only where the receipt prints one: `Choice.printsTax`, and then
    ///   also when no tax was taken);
    /// - with the rules alone, a total below 0.6 or a date below 0.5.
    package static func fields(_ choice: Choice) -> [String] {
        var fields: [String] = []
        if choice.total == nil { fields.append("total") }
        if choice.date == nil { fields.append("date") }
        if choice.vendor == nil { fields.append("vendor") }
        if let tax = choice.tax, let total = choice.total, tax >= total { fields.append("tax") }
        if let flagged = choice.flaggedByModel {
            fields += flagged
        } else {
            if choice.confidence.total < 0.6 { fields.append("total") }
            if choice.confidence.date < 0.5 { fields.append("date") }
        }
        return fields
    }
}
