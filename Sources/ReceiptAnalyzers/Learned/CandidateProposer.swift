import Foundation
import ReceiptModel

/// The rules' proposals for a receipt: every amount for the total and the tax, every date for the
/// date, and for the vendor the rules' pick, the other header rows that may be the name and the
/// names the receipt gives elsewhere (web address, merchant line, thanks), each with its features.
///
/// Features describe evidence a person would weigh and that holds across shops and countries: the
/// row's label class, where the row is, how the value relates to the other amounts (subtotal +
/// tax, cash − change, items' sum, repeats), how clearly it was read, and whether the rules picked
/// it. Nothing names a shop, a file or a data set. Each field's features are one list of named
/// entries (`totalFeatures`, `dateFeatures`, `vendorFeatures`, `taxFeatures`).
package enum CandidateProposer {
    /// The names of a field's features, in the order candidates carry their values.
    package static func features(for field: LearnedField) -> [String] {
        switch field {
        case .total: totalFeatures.names()
        case .date: dateFeatures.names()
        case .vendor: vendorFeatures.names()
        case .tax: taxFeatures.names()
        case .item: itemFeatures.names()
        }
    }

    /// The amounts of the rows that pass `test`.
    static func amounts(_ rows: [AmountLine], _ test: (AmountLine) -> Bool) -> [Decimal] {
        rows.filter(test).flatMap { $0.amounts.map(\.value) }
    }

    static func medianHeight(_ lines: [ReceiptLine]) -> Double {
        let heights = lines.compactMap { $0.box.map { Double($0.height) } }.sorted()
        return heights.isEmpty ? 0 : heights[heights.count / 2]
    }
}

/// The rows printing an amount, and what they say of where and how clearly it was read.
struct Placement {
    let rows: [AmountLine]
    /// The amount's own tokens on those rows.
    let tokens: [AmountToken]
    /// log(1 + times printed).
    var occurrences: Double { log1p(Double(tokens.count)) }
    /// The index of the last row printing it; nil when none does.
    let lastRow: Int?
    /// 0 for the last row, 1 for the first; 1 and 1 when no row prints it.
    let fromBottom: Double, fromTop: Double
    /// The clearest row's OCR confidence, 0–1.
    let readConfidence: Double

    init(_ value: Decimal, rows all: [AmountLine], lastIndex: Int) {
        rows = all.filter { row in row.amounts.contains { $0.value == value } }
        tokens = rows.flatMap { row in row.amounts.filter { $0.value == value } }
        let indices = rows.map(\.line.index)
        lastRow = indices.max()
        fromBottom = lastRow.map { Double(lastIndex - $0) / Double(lastIndex) } ?? 1
        fromTop = indices.min().map { Double($0) / Double(lastIndex) } ?? 1
        readConfidence = (rows.map(\.line.confidence).max() ?? 0) / 100
    }

    /// 1 when a row printing it passes `test`.
    func on(_ test: (AmountLine) -> Bool) -> Double { rows.contains(where: test) ? 1 : 0 }
}
