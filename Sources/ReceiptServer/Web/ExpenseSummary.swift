import Foundation
import ReceiptKit

/// The expenses page's totals per category and per month, as tables and server-drawn SVG bars.
/// Sums are exact decimals, one currency at a time: the chart shows the currency most expenses
/// are in; the others are listed with their totals.
struct ExpenseSummary {
    var currency: String?
    var perCategory: [(String, Decimal)]
    var perMonth: [(String, Decimal)]
    /// Totals of the other currencies.
    var others: [(String, Decimal)]

    init(_ expenses: [Expense]) {
        let priced = expenses.filter { $0.amount != nil }
        var counts: [String: Int] = [:]
        for e in priced { counts[e.currency ?? "", default: 0] += 1 }
        let main = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        currency = main.flatMap { $0.isEmpty ? nil : $0 }
        var categories: [String: Decimal] = [:], months: [String: Decimal] = [:], rest: [String: Decimal] = [:]
        for e in priced {
            guard (e.currency ?? "") == main else { rest[e.currency ?? "?", default: 0] += e.amount!; continue }
            categories[e.category, default: 0] += e.amount!
            months[e.date.map { String($0.description.prefix(7)) } ?? "no date", default: 0] += e.amount!
        }
        perCategory = categories.sorted { $0.value > $1.value }.map { ($0.key, $0.value) }
        perMonth = months.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        others = rest.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    var html: String {
        guard !perCategory.isEmpty else { return "" }
        let unit = currency ?? "(no currency)"
        var out = "<section class=\"summary\">"
        out += "<figure><figcaption>Per category, \(HTML.escape(unit))</figcaption>\(Self.bars(perCategory, currency: currency, id: "chart-category"))</figure>"
        out += "<figure><figcaption>Per month, \(HTML.escape(unit))</figcaption>\(Self.bars(perMonth, currency: currency, id: "chart-month"))</figure>"
        if !others.isEmpty {
            out += "<p>Also: " + others.map { "\(HTML.escape($0.0)) \(Money.format($0.1, currency: $0.0))" }.joined(separator: ", ") + "</p>"
        }
        return out + "</section>"
    }

    /// Horizontal bars, one per row, labelled with the name and the exact total.
    static func bars(_ rows: [(String, Decimal)], currency: String?, id: String) -> String {
        let rowHeight = 26, labelWidth = 110, barWidth = 220, valueWidth = 110
        let width = labelWidth + barWidth + valueWidth, height = rows.count * rowHeight + 4
        let largest = rows.map { abs(NSDecimalNumber(decimal: $0.1).doubleValue) }.max() ?? 0
        var svg = "<svg id=\"\(id)\" class=\"chart\" role=\"img\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" xmlns=\"http://www.w3.org/2000/svg\">"
        for (index, (name, total)) in rows.enumerated() {
            let y = index * rowHeight + 2
            let value = abs(NSDecimalNumber(decimal: total).doubleValue)
            let length = largest > 0 ? max(1, Int((value / largest * Double(barWidth)).rounded())) : 0
            svg += "<text x=\"\(labelWidth - 6)\" y=\"\(y + 17)\" text-anchor=\"end\" font-size=\"13\" fill=\"currentColor\">\(HTML.escape(name))</text>"
            svg += "<rect x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(length)\" height=\"\(rowHeight - 8)\" rx=\"3\" fill=\"#3b7dd8\"><title>\(HTML.escape(name)): \(Money.format(total, currency: currency))</title></rect>"
            svg += "<text x=\"\(labelWidth + length + 6)\" y=\"\(y + 17)\" font-size=\"13\" fill=\"currentColor\">\(Money.format(total, currency: currency))</text>"
        }
        return svg + "</svg>"
    }
}
