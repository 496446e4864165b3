import Foundation
import ReceiptModel

/// Reads the purchased items: rows between the header and the first subtotal/total row that
/// carry a description and an amount (`2 x COFFEE 3.50 7.00`, `COFFEE 2 @ 3.50 7.00`).
package enum LineItemParser {
    private static let quantityPrefix = Pattern(#"^\s*(\d{1,3})\s*[xX*@]?\s+(?=\D)"#)
    private static let quantityTimes = Pattern(#"(\d{1,3}(?:[.,]\d{1,3})?)\s*[xX@*]\s*(?:[$£€¥]|RM|RP)?\s*(\d+(?:[.,]\d{2,3})?)"#)

    /// The rules' items: every row of the items' block (`block`) that `item(from:)` reads as one,
    /// with a positive amount and a description of three letters or more.
    package static func parse(_ rows: [AmountLine]) -> [LineItem] {
        guard let block = block(rows) else { return [] }
        let items = block.compactMap { i -> LineItem? in
            guard !rows[i].borrowed, let item = item(from: rows[i], above: i > 0 ? rows[i - 1] : nil), (item.amount ?? 0) > 0,
                  item.description.filter(\.isLetter).count >= 3 else { return nil }
            return item
        }
        return withoutBreakdown(items, rows)
    }

    /// "PARTS 147.49 / LABOR 216.00 / SHOP SUPPLIES 12.00" above "SUBTOTAL 375.49": the items once
    /// more, summed by kind. The last items that add up to what the items above them add up to,
    /// and to a subtotal or total printed, are such a breakdown, not items.
    static func withoutBreakdown(_ items: [LineItem], _ rows: [AmountLine]) -> [LineItem] {
        guard items.count >= 4 else { return items }
        let sums = rows.filter { $0.role == .subtotal || $0.role.totalStrength > 0 }.flatMap { $0.amounts.map(\.value) }
        let amounts = items.map { $0.amount ?? 0 }
        for k in 2...(items.count / 2) {
            let tail = amounts.suffix(k).reduce(0, +), head = amounts.dropLast(k).reduce(0, +)
            if tail > 0, TotalFinder.close(tail, head), sums.contains(where: { TotalFinder.close($0, tail) }) {
                return Array(items.dropLast(k))
            }
        }
        return items
    }

    /// The rows of the items' block: from the first row with an amount to the last before the first
    /// subtotal, total, tax or payment row under it. Nil when there is none.
    package static func block(_ rows: [AmountLine]) -> Range<Int>? {
        guard let firstAmount = rows.firstIndex(where: { !$0.amounts.isEmpty }) else { return nil }
        let end = rows.firstIndex(where: { r in
            r.line.index >= rows[firstAmount].line.index && endsItems(r)
        }) ?? rows.endIndex
        return end > firstAmount ? firstAmount..<end : nil
    }

    /// A row that closes the items: a subtotal, a total (TOTAL or stronger), a tax or a payment.
    package static func endsItems(_ row: AmountLine) -> Bool {
        row.role == .subtotal || row.role.totalStrength >= 7 || row.role == .tax || row.role.isPayment
    }

    /// Lines that are totals, tax, tender, change, payment, rounding, tips, discounts or counts are
    /// never items.
    package static func mayBeItem(_ row: AmountLine) -> Bool {
        row.role == .other
    }

    /// A row as an item: its last amount, the description (the row's text without its amounts,
    /// quantity and specks), a quantity and a unit price where printed (`2 x 3.50`, `2 @ 3.50`, a
    /// leading count, or an amount before the last one that divides it). Nil for a row that is not
    /// an item's (`mayBeItem`) or has no amount.
    ///
    /// A row whose description has no letters (`2 x 65.000   130.000`) under a row of words with no
    /// amount (`Oli Mesin Sintetik`) is that item's second row: the description is the row above's.
    ///
    /// A row of a quantity and a unit price alone (`2 x 68.50`) under an item whose amount they make
    /// (`TYRE 205/55 R16 137.00`) is that item's detail, not an item.
    package static func item(from row: AmountLine, above: AmountLine? = nil) -> LineItem? {
        guard var item = item(from: row) else { return nil }
        let noDescription = !item.description.contains(where: \.isLetter) || item.description.filter(\.isLetter).count <= 1
        if noDescription, let above, let aboveAmount = above.amounts.last,
           let m = quantityTimes.firstMatch(in: row.line.text), let q = m[1].flatMap(Money.parse),
           let p = m[2].flatMap(Money.parse), q > 1, p == item.amount, fits(q, p, aboveAmount.value) {
            return nil
        }
        if noDescription,
           let above, above.amounts.isEmpty, above.role == .other,
           cleanDescription(above.line.text).filter(\.isLetter).count >= 3 {
            item.description = cleanDescription(above.line.text)
        }
        return item
    }

    private static func item(from row: AmountLine) -> LineItem? {
        guard mayBeItem(row), let amount = row.amounts.last else { return nil }
        var description = AmountLine.labelPart(of: row.line.text, without: row.amounts)
        var quantity: Decimal? = nil
        var unitPrice: Decimal? = nil
        if let m = quantityTimes.firstMatch(in: row.line.text), let q = m[1].flatMap(Money.parse), let p = m[2].flatMap(Money.parse),
           q > 0, p > 0, Self.fits(q, p, amount.value) {
            quantity = q
            unitPrice = p
            if let range = description.range(of: m[0]!) { description.removeSubrange(range) }
        } else if let m = quantityPrefix.firstMatch(in: description), let q = m[1].flatMap({ Decimal(string: $0) }), q > 0 {
            quantity = q
            description = String(description.dropFirst(m[0]!.count))
        }
        if unitPrice == nil, row.amounts.count >= 2 {
            let unit = row.amounts[row.amounts.count - 2].value
            if unit > 0, let q = quantity, Self.fits(q, unit, amount.value) {
                unitPrice = unit
            } else if quantity == nil, unit > 0 {
                let q = amount.value / unit
                if q == q.rounded(scale: 0), q >= 1, q < 100 { quantity = q; unitPrice = unit }
            }
        }
        return LineItem(description: cleanDescription(description), quantity: quantity, unitPrice: unitPrice, amount: amount.value)
    }

    /// Quantity × unit price is the amount, to the cent (a fuel price has three decimals).
    static func fits(_ quantity: Decimal, _ unit: Decimal, _ amount: Decimal) -> Bool {
        abs(quantity * unit - amount) <= 0.011 || (quantity * unit).rounded(scale: 0) == amount && amount >= 100
    }

    /// A description without the specks OCR reads around it: punctuation and symbols at either end,
    /// tokens with neither letters nor digits, a lone tax code letter at the end (`A`, `T`).
    package static func cleanDescription(_ text: String) -> String {
        var tokens = text.split(whereSeparator: \.isWhitespace).map(String.init)
        tokens = tokens.filter { $0.contains(where: { $0.isLetter || $0.isNumber }) }
        while let last = tokens.last, tokens.count > 1, last.count == 1, last.first?.isLetter == true { tokens.removeLast() }
        // A quantity's mark left at the end (`… 2 x`, `… 3 @`) once the unit price was taken out.
        while tokens.count > 1, let last = tokens.last, ["x", "X", "@", "*"].contains(last) || last.allSatisfy(\.isASCIIDigit),
              tokens.count > 1, tokens.dropLast().contains(where: { $0.contains(where: \.isLetter) }) { tokens.removeLast() }
        return tokens.joined(separator: " ").trimmingCharacters(in: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "()'&%#")).inverted)
    }
}
