import Foundation
import ReceiptModel

/// Reads the purchased items: rows between the header and the first subtotal/total row that
/// carry a description and an amount (`2 x COFFEE 3.50 7.00`, `COFFEE 2 @ 3.50 7.00`).
package enum LineItemParser {
    private static let quantityPrefix = Pattern(#"^\s*(\d{1,3})\s*[xX*@]?\s+(?=\D)"#)
    private static let quantityTimes = Pattern(#"(\d{1,3}(?:[.,]\d{1,3})?)\s*[xX@*]\s*(?:[$£€]|RM)?\s*(\d+[.,]\d{2})"#)

    package static func parse(_ rows: [AmountLine]) -> [LineItem] {
        guard let firstAmount = rows.firstIndex(where: { !$0.amounts.isEmpty }) else { return [] }
        let end = rows.firstIndex(where: { r in
            r.line.index >= rows[firstAmount].line.index
                && (r.role == .subtotal || r.role.totalStrength >= 7 || r.role == .tax || r.role.isPayment)
        }) ?? rows.endIndex
        guard end > firstAmount else { return [] }
        var items: [LineItem] = []
        for row in rows[firstAmount..<end] where row.role == .other && !row.borrowed {
            guard let amount = row.amounts.last, amount.value > 0 else { continue }
            var description = AmountLine.labelPart(of: row.line.text, without: row.amounts)
            let letters = description.filter(\.isLetter).count
            guard letters >= 3 else { continue }
            var quantity: Decimal? = nil
            var unitPrice: Decimal? = nil
            if let m = quantityTimes.firstMatch(in: row.line.text) {
                quantity = m[1].flatMap(Money.parse)
                unitPrice = m[2].flatMap(Money.parse)
            } else if let m = quantityPrefix.firstMatch(in: description), let q = m[1].flatMap({ Decimal(string: $0) }), q > 0 {
                quantity = q
                description = String(description.dropFirst(m[0]!.count))
            }
            if unitPrice == nil, row.amounts.count >= 2 {
                unitPrice = row.amounts[row.amounts.count - 2].value
                if quantity == nil, unitPrice! > 0 {
                    let q = amount.value / unitPrice!
                    if q == q.rounded(scale: 0), q >= 1, q < 100 { quantity = q } else { unitPrice = nil }
                }
            }
            description = description.trimmingCharacters(in: CharacterSet(charactersIn: " -:*.|"))
            items.append(LineItem(description: description, quantity: quantity, unitPrice: unitPrice, amount: amount.value))
        }
        return items
    }
}
