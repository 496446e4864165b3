import Foundation
import ReceiptModel

/// A deposit or an instalment names itself among the line items (issue 58): an insurer's letter
/// confirming "Deposit paid today £518.80" of an annual premium of £3,458.64 is a receipt for the
/// deposit, whatever the premium's own rows say.
enum PartPayment {
    /// The items, or the part payment alone when the total is printed on a row naming a deposit or
    /// an instalment and the items do not add up to the total.
    static func items(_ items: [LineItem], total: Decimal?, rows: [AmountLine]) -> [LineItem] {
        guard let total, total > 0 else { return items }
        let sum = items.compactMap(\.amount).reduce(0, +)
        if !items.isEmpty, TotalFinder.close(sum, total) { return items }
        guard let row = rows.first(where: { $0.label.hasAny(LetterParts.partPaymentWords) && $0.amounts.contains { $0.value == total } })
        else { return items }
        let label = AmountLine.labelPart(of: row.line.text, without: row.amounts)
        let description = label.trimmingCharacters(in: CharacterSet(charactersIn: " :£$€-"))
        guard description.filter(\.isLetter).count >= 3 else { return items }
        return [LineItem(description: description, quantity: 1, unitPrice: total, amount: total)]
    }
}
