import Foundation
import ReceiptModel

/// Whether a person should look at a receipt, and at which fields: the one place `needsReview`
/// and `review` are decided.
package enum ReviewDecision {
    /// A vendor less likely right than this is named in `review` (it does not set `needsReview`:
    /// a person files the expense by its total, date and tax). Held out (docs/learned-model.md),
    /// vendors given 0.7–0.8 are right about 80 % of the time, below 0.7 about half.
    package static let vendorBelow = 0.7

    /// A category of this confidence or less is the taxonomy's fallback: nothing on the receipt
    /// said what kind of expense it is (`CategoryClassifier`).
    package static let categoryAtMost = 0.4

    /// The fields to look at (`ReceiptAnalysis.review`):
    /// - a missing total, date or vendor;
    /// - a tax not less than the total, or above what the receipt's country allows
    ///   (`TaxCeilings`);
    /// - with the learned model, a total, date or tax less likely right than its threshold (chosen
    ///   on held-out folds; the tax only where the receipt prints one: `Choice.printsTax`, and then
    ///   also when no tax was taken), a total or tax the printed amounts contradict
    ///   (`LearnedModel.contradicts`), a vendor less likely right than `vendorBelow`;
    /// - with the rules alone, a total below 0.6 or a date below 0.5;
    /// - a category that is the taxonomy's fallback.
    /// `ReceiptAnalysis.flag` sets `needsReview` when the total, the date or the tax is named, or
    /// the vendor is missing.
    package static func fields(_ choice: Choice, currency: String? = nil, categoryConfidence: Double? = nil) -> [String] {
        var fields: [String] = []
        if choice.total == nil { fields.append("total") }
        if choice.date == nil { fields.append("date") }
        if choice.vendor == nil { fields.append("vendor") }
        if let tax = choice.tax, let total = choice.total,
           tax >= total || TaxCeilings.exceeds(tax, total: total, currency: currency) {
            fields.append("tax")
        }
        if let flagged = choice.flaggedByModel {
            fields += flagged
        } else {
            if choice.confidence.total < 0.6 { fields.append("total") }
            if choice.confidence.date < 0.5 { fields.append("date") }
        }
        if let categoryConfidence, categoryConfidence <= categoryAtMost { fields.append("category") }
        return fields
    }
}
