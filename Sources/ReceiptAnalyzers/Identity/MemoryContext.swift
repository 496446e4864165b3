import Foundation
import ReceiptModel

/// What the memory of shops recalled for one receipt, as its candidates are weighed (issue 57):
/// the shops some printed key points at, and how the receipt's rows are labelled, so that a total
/// printed on the row the shop's confirmed totals were on, or a date on the row its confirmed
/// dates were on, can be told apart.
package struct MemoryContext {
    package let recall: ShopRecall?
    /// The readings the receipt's rows come from.
    let readings: [Reading]

    package init(recall: ShopRecall?, readings: [Reading]) {
        self.recall = recall
        self.readings = readings
    }

    /// No memory: every memory feature is 0.
    package static let none = MemoryContext(recall: nil, readings: [])

    /// The shop whose printing weighs the totals, dates and taxes: the best match, when some key
    /// points at it alone.
    var layoutShop: RememberedShop? {
        guard let best = recall?.best, !best.deciding.isEmpty else { return nil }
        return best.shop
    }

    /// At most this many remembered shops are proposed as the vendor.
    static let shopsProposed = 3

    // MARK: Rows

    /// The labels of the rows printing `amount` in any reading (`TOTAL ROUNDED RM`).
    func totalLabels(_ amount: Decimal) -> [String] {
        var labels: [String] = []
        for reading in readings {
            for row in reading.rows where row.amounts.contains(where: { $0.value == amount }) {
                let label = Self.label(row)
                if !label.isEmpty, !labels.contains(label) { labels.append(label) }
            }
        }
        return labels
    }

    /// A row's label: its words, upper case, without its amounts.
    static func label(_ row: AmountLine) -> String {
        row.label.words.filter { $0.contains(where: \.isLetter) }.prefix(6).joined(separator: " ")
    }

    /// The shapes of the rows printing `date` in any reading (`DATE:99/99/9999 99:99`).
    func dateRows(_ date: CalendarDate) -> [String] {
        var shapes: [String] = []
        for reading in readings {
            for line in reading.document.lines where Self.shows(date, line.text) {
                let shape = Self.shape(line.text)
                if !shape.isEmpty, !shapes.contains(shape) { shapes.append(shape) }
            }
        }
        return shapes
    }

    /// Whether a row's numbers hold `date`'s day, month and year (or its month's name).
    static func shows(_ date: CalendarDate, _ text: String) -> Bool {
        let numbers = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        let year = numbers.contains(date.year) || numbers.contains(date.year % 100)
        let month = numbers.contains(date.month)
            || text.split(whereSeparator: { !$0.isLetter }).contains { DateFinder.month(String($0)) == date.month }
        return year && month && numbers.contains(date.day)
    }

    /// A row's print without what changes from receipt to receipt: digits as `9`, a month's name as
    /// `MON`, upper case, no spaces, at most 40 characters.
    static func shape(_ text: String) -> String {
        var out = ""
        var word = ""
        func flush() {
            if !word.isEmpty { out += DateFinder.month(word) != nil ? "MON" : word.uppercased() }
            word = ""
        }
        for c in text {
            if c.isLetter { word.append(c); continue }
            flush()
            if c.isNumber { if out.last != "9" { out += "9" } } else if !c.isWhitespace { out.append(c) }
        }
        flush()
        return String(out.prefix(40))
    }

    /// The layout the analysis records: the labels of the rows of the likeliest totals (the chosen
    /// one and the largest amounts) and the shapes of the rows of its dates.
    func layout(totals: [Candidate], chosenTotal: Decimal?, dates: [Candidate]) -> ShopLayout {
        var amounts = totals.compactMap { Decimal(string: $0.value) }.sorted(by: >).prefix(8).map { $0 }
        if let chosenTotal, !amounts.contains(chosenTotal) { amounts.append(chosenTotal) }
        let totalRows = amounts.map { (value: $0.moneyString, labels: totalLabels($0)) }.filter { !$0.labels.isEmpty }
        let dateRows = dates.prefix(4).compactMap { c in CalendarDate(iso: c.value).map { (value: c.value, rows: self.dateRows($0)) } }
            .filter { !$0.rows.isEmpty }
        return ShopLayout(totals: totalRows, dates: dateRows)
    }
}
