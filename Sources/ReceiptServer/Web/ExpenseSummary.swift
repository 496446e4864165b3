import Foundation
import ReceiptKit

/// The expenses page's totals per category and per month, as tables and server-drawn SVG bars.
/// Sums are exact decimals summed by the store (`ExpenseTotals`), one currency at a time: the chart
/// shows the currency most expenses are in; the others are listed with their totals. Draft
/// expenses flagged as a possible duplicate are left out (the same purchase is not counted twice
/// until a person confirms it), and the page says how many.
struct ExpenseSummary {
    var currency: String?
    var perCategory: [(String, Decimal)]
    var perMonth: [(String, Decimal)]
    /// Totals of the other currencies.
    var others: [(String, Decimal)]
    /// Possible duplicates left out.
    var duplicates: Int

    init(_ totals: ExpenseTotals) {
        var counts: [String: Int] = [:]
        for row in totals.rows { counts[row.currency ?? "", default: 0] += row.count }
        let main = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        currency = main.flatMap { $0.isEmpty ? nil : $0 }
        var categories: [String: Decimal] = [:], months: [String: Decimal] = [:], rest: [String: Decimal] = [:]
        for row in totals.rows {
            guard (row.currency ?? "") == main else { rest[row.currency ?? "?", default: 0] += row.total; continue }
            categories[row.category, default: 0] += row.total
            months[row.month ?? "no date", default: 0] += row.total
        }
        perCategory = categories.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.map { ($0.key, $0.value) }
        perMonth = months.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        others = rest.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        duplicates = totals.possibleDuplicates
    }

    var html: String {
        guard !perCategory.isEmpty else { return "" }
        let unit = currency ?? "(no currency)"
        var out = "<section class=\"summary\">"
        // The other currencies' totals, a second line under these totals (the charts are in one currency).
        let also = others.isEmpty ? ""
            : "<p class=\"also\" id=\"also\">Also: " + others.map { "\(HTML.escape($0.0)) \(Money.format($0.1, currency: $0.0))" }.joined(separator: ", ") + "</p>"
        out += "<figure><figcaption>Per category, \(HTML.escape(unit))</figcaption>\(Self.bars(perCategory, currency: currency, id: "chart-category"))\(also)</figure>"
        out += "<figure><figcaption>Per month, \(HTML.escape(unit))</figcaption>\(Self.bars(perMonth, currency: currency, id: "chart-month"))</figure>"
        if duplicates > 0 {
            out += "<p id=\"duplicates-left-out\">Not counted: \(duplicates) possible duplicate\(duplicates == 1 ? "" : "s") "
                + "(the same purchase as another expense; confirm one to count it).</p>"
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
