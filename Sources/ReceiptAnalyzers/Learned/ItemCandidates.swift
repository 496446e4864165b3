import Foundation
import ReceiptModel

/// One reading's view of a row that may be an item's: the row, the item read from it, and what the
/// reading says of where it stands.
struct ItemRowReading {
    let row: AmountLine
    let item: LineItem
    let amount: AmountToken
    /// The row's place among the reading's rows (`Reading.rows`).
    let position: Int
}

/// What one reading's rows say of its items, shared by all its item candidates.
struct ItemContext {
    let reading: Reading
    /// Every row that may be an item's (`LineItemParser.item`), in reading order.
    let rows: [ItemRowReading]
    /// The items' block (`LineItemParser.block`) in `reading.rows`.
    let block: Range<Int>?
    /// The rules' items (`LineItemParser.parse`), by row index.
    let rulesRows: Set<Int>
    /// What items may add up to: subtotals, totals, a total less its tax.
    let targets: Set<Decimal>
    /// The rows (by `ReceiptLine.index`) of the subset of the block's rows whose amounts add up to a
    /// target (`summingRows`); empty when none does.
    let summing: Set<Int>
    let lastIndex: Int
    let medianHeight: Double
    let largest: Decimal

    init(_ reading: Reading) {
        self.reading = reading
        let rows = reading.rows
        var found: [ItemRowReading] = []
        for (i, row) in rows.enumerated() where !row.borrowed {
            guard let item = LineItemParser.item(from: row, above: i > 0 ? rows[i - 1] : nil), let amount = row.amounts.last, amount.value >= 0,
                  item.description.contains(where: \.isLetter) else { continue }
            found.append(ItemRowReading(row: row, item: item, amount: amount, position: i))
        }
        self.rows = found
        let block = LineItemParser.block(rows)
        self.block = block
        let blockRows = found.filter { block?.contains($0.position) ?? false }
        rulesRows = Set(blockRows.filter { r in
            r.item.description.filter(\.isLetter).count >= 3 && r.amount.value > 0
        }.map(\.row.line.index))
        let targets = ItemContext.targets(rows)
        self.targets = targets
        summing = ItemContext.summingRows(blockRows.map { ($0.row.line.index, $0.amount.value) }, targets: targets)
        lastIndex = max(1, reading.document.lines.last?.index ?? 1)
        medianHeight = CandidateProposer.medianHeight(reading.document.lines)
        largest = rows.flatMap { $0.amounts.map(\.value) }.max() ?? 0
    }

    /// Subtotals, totals (TOTAL or stronger, and weaker ones), and each total less each tax: what a
    /// receipt's items may sum to.
    static func targets(_ rows: [AmountLine]) -> Set<Decimal> {
        let totals = CandidateProposer.amounts(rows) { $0.role == .subtotal || $0.role.totalStrength > 0 }.filter { $0 > 0 }
        let taxes = CandidateProposer.amounts(rows) { $0.role == .tax }.filter { $0 > 0 }
        var targets = Set(totals)
        for t in totals { for x in taxes where x < t { targets.insert(t - x) } }
        return targets
    }

    /// The rows (keys) whose amounts add up to a target: all of them, else all but one when exactly
    /// one such row can be left out. Empty when no such subset, or more than one, is found.
    static func summingRows(_ rows: [(key: Int, amount: Decimal)], targets: Set<Decimal>) -> Set<Int> {
        guard rows.count >= 2, !targets.isEmpty else { return [] }
        let sum = rows.map(\.amount).reduce(0, +)
        if targets.contains(sum) { return Set(rows.map(\.key)) }
        let leftOut = rows.indices.filter { rows[$0].amount > 0 && targets.contains(sum - rows[$0].amount) }
        guard leftOut.count == 1 else { return [] }
        return Set(rows.enumerated().filter { $0.offset != leftOut[0] }.map(\.element.key))
    }

    /// The reading's row of this printed row (vertically overlapping by half the smaller height), if any.
    func row(overlapping box: BoundingBox?) -> ItemRowReading? {
        guard let box else { return nil }
        return rows.max { a, b in overlap(a.row.line.box, box) < overlap(b.row.line.box, box) }
            .flatMap { overlap($0.row.line.box, box) >= 0.5 ? $0 : nil }
    }

    private func overlap(_ a: BoundingBox?, _ b: BoundingBox) -> Double {
        guard let a else { return 0 }
        let shared = min(a.maxY, b.maxY) - max(a.y, b.y)
        let smaller = min(a.height, b.height)
        return smaller > 0 ? Double(shared) / Double(smaller) : 0
    }
}

/// One reading's proposal of an amount on a row as an item.
struct ItemEvidence {
    let context: ItemContext
    let read: ItemRowReading

    var description: String { read.item.description }
    var letters: Int { description.filter(\.isLetter).count }
    var inBlock: Bool { context.block?.contains(read.position) ?? false }
    var afterBlock: Bool { context.block.map { read.position >= $0.upperBound } ?? false }
    var index: Int { read.row.line.index }
}

/// A line item's candidate as the analyzer keeps it: the candidate the model scores, and the item
/// it stands for (the description read best).
package struct ItemCandidate: Sendable {
    package var candidate: Candidate
    package var item: LineItem
    /// Where the row is on the page (its top), for reading order.
    package var top: Int
}

extension CandidateProposer {
    private static let itemMoneyMarks = Pattern(#"[$£€¥]\s?\d|\d[.,]\d{2}"#)

    static let itemFeatures: [Feature<ItemEvidence>] = [
        Feature("rulesItem") { $0.context.rulesRows.contains($0.index).feature },
        Feature("inBlock") { $0.inBlock.feature },
        Feature("afterBlock") { $0.afterBlock.feature },
        Feature("letters") { min(1, Double($0.letters) / 12) },
        Feature("letterShare") { e in
            let visible = e.description.filter { !$0.isWhitespace }.count
            return visible == 0 ? 0 : Double(e.letters) / Double(visible)
        },
        Feature("words") { min(1, Double($0.description.split(separator: " ").count) / 4) },
        Feature("moneyInDescription") { itemMoneyMarks.matches($0.description).feature },
        Feature("quantityTimesPrice") { ($0.read.item.unitPrice != nil && $0.read.item.quantity != nil).feature },
        Feature("quantity") { ($0.read.item.quantity != nil).feature },
        Feature("amountsOnRow") { log1p(Double($0.read.row.amounts.count)) },
        Feature("lastToken") { e in
            let tokens = e.read.row.line.text.split(whereSeparator: \.isWhitespace)
            let after = tokens.count - (e.read.amount.tokenIndex + e.read.amount.tokenCount)
            return (after == 0 || after == 1 && tokens.last!.count <= 2).feature
        },
        Feature("rowConfidence") { $0.read.row.line.confidence / 100 },
        Feature("currencyMark") { ($0.read.amount.currencyMark != nil).feature },
        Feature("repaired") { $0.read.amount.repaired.feature },
        Feature("zero") { ($0.read.amount.value == 0).feature },
        Feature("fromTop") { Double($0.index) / Double($0.context.lastIndex) },
        Feature("fromBottom") { Double($0.context.lastIndex - $0.index) / Double($0.context.lastIndex) },
        Feature("isLargest") { ($0.read.amount.value == $0.context.largest).feature },
        Feature("isTarget") { $0.context.targets.contains($0.read.amount.value).feature },
        Feature("sums") { $0.context.summing.contains($0.index).feature },
        Feature("sumFound") { (!$0.context.summing.isEmpty).feature },
        Feature("relativeHeight") { e in
            guard let h = e.read.row.line.box?.height, e.context.medianHeight > 0 else { return 1 }
            return min(3, Double(h) / e.context.medianHeight)
        },
        Feature("itemRows") { log1p(Double($0.context.rows.count)) },
    ]

    /// One reading's item candidates: every row that may be an item's, its amount the value.
    package static func items(_ reading: Reading) -> [ItemCandidate] {
        let context = ItemContext(reading)
        return context.rows.map { read in
            let evidence = ItemEvidence(context: context, read: read)
            return ItemCandidate(candidate: Candidate(field: .item, value: read.amount.value.moneyString,
                                                      features: itemFeatures.values(evidence), row: read.row.line.index),
                                 item: read.item, top: read.row.line.box?.y ?? read.row.line.index)
        }
    }

    /// Both readings' item candidates, a printed row once (Tesseract's row and the neural reader's
    /// that overlap it by half the smaller height are one row), a value once a row: each reading's
    /// features where it reads that amount on the row, then what the two say together — both read
    /// the amount (`inBoth`), they read the row with different amounts (`disputed`), their
    /// descriptions agree, and the amounts both readings' rows give add up to a total
    /// (`sumsBoth`). The item's description is the reading's that reads it with the fewest
    /// characters that are not letters.
    package static func items(tesseract: Reading, neural: Reading) -> [ItemCandidate] {
        let t = ItemContext(tesseract), n = ItemContext(neural)
        let width = itemFeatures.count
        let zeros = [Double](repeating: 0, count: width)
        // Printed rows: the neural reader's rows, each with Tesseract's overlapping row, then
        // Tesseract's rows no neural row took.
        var printed: [(t: ItemRowReading?, n: ItemRowReading?)] = []
        var taken = Set<Int>()
        for nr in n.rows {
            let tr = t.row(overlapping: nr.row.line.box).flatMap { taken.contains($0.row.line.index) ? nil : $0 }
            if let tr { taken.insert(tr.row.line.index) }
            printed.append((tr, nr))
        }
        for tr in t.rows where !taken.contains(tr.row.line.index) { printed.append((tr, nil)) }
        printed.sort { top($0) < top($1) }
        let sums = summingBoth(printed, targets: t.targets.union(n.targets), t: t, n: n)
        var out: [ItemCandidate] = []
        for (i, pair) in printed.enumerated() {
            var values: [Decimal] = []
            for v in [pair.t?.amount.value, pair.n?.amount.value].compactMap({ $0 }) where !values.contains(v) { values.append(v) }
            let descriptionsAgree = pair.t.flatMap { a in pair.n.map { b in
                similarity(a.item.description, b.item.description) >= 0.7 } } ?? false
            for value in values {
                let tf = pair.t.flatMap { $0.amount.value == value ? itemFeatures.values(ItemEvidence(context: t, read: $0)) : nil }
                let nf = pair.n.flatMap { $0.amount.value == value ? itemFeatures.values(ItemEvidence(context: n, read: $0)) : nil }
                let agreement = [(tf != nil && nf != nil).feature, (pair.t != nil && pair.n != nil && values.count > 1).feature,
                                 descriptionsAgree.feature, (sums[i] == value).feature, (!sums.isEmpty).feature]
                let features = (tf ?? zeros) + [(tf != nil).feature] + (nf ?? zeros) + [(nf != nil).feature] + agreement
                let readings = [pair.t, pair.n].compactMap { $0 }.filter { $0.amount.value == value }
                var item = readings[0].item
                item.description = bestDescription([pair.n, pair.t].compactMap { $0 }).item.description
                if item.quantity == nil, let q = readings.lazy.compactMap(\.item.quantity).first { item.quantity = q }
                if item.unitPrice == nil, let p = readings.lazy.compactMap(\.item.unitPrice).first { item.unitPrice = p }
                item.amount = value
                out.append(ItemCandidate(candidate: Candidate(field: .item, value: value.moneyString, features: features, row: i),
                                         item: item, top: top(pair)))
            }
        }
        return out
    }

    /// The features of a line item's candidate with both readers: each reading's, whether it reads
    /// the amount on the row, then the agreement.
    static let itemAgreementFeatures = ["inBoth", "disputed", "descriptionsAgree", "sumsBoth", "sumFoundBoth"]

    private static func top(_ pair: (t: ItemRowReading?, n: ItemRowReading?)) -> Int {
        (pair.n ?? pair.t).map { $0.row.line.box?.y ?? $0.row.line.index } ?? 0
    }

    /// The reading that reads the description best: the most letters among its visible characters,
    /// then the most letters.
    private static func bestDescription(_ readings: [ItemRowReading]) -> ItemRowReading {
        func share(_ r: ItemRowReading) -> Double {
            let d = r.item.description
            let visible = d.filter { !$0.isWhitespace }.count
            return visible == 0 ? 0 : Double(d.filter(\.isLetter).count) / Double(visible)
        }
        return readings.max { a, b in
            let (x, y) = (share(a), share(b))
            return x != y ? x < y : a.item.description.filter(\.isLetter).count < b.item.description.filter(\.isLetter).count
        }!
    }

    /// Two descriptions' likeness, 0–1 (letters and digits, case ignored).
    static func similarity(_ a: String, _ b: String) -> Double {
        let x = Array(NameMatching.normalized(a).unicodeScalars), y = Array(NameMatching.normalized(b).unicodeScalars)
        guard !x.isEmpty || !y.isEmpty else { return 1 }
        return 1 - Double(LabelText.editDistance(x, y)) / Double(max(x.count, y.count))
    }

    /// For each printed row, the amount it has in the one way the two readings' block rows add up to
    /// a target: a disputed row either reading's amount (up to four such rows tried), one row read
    /// by one reading alone possibly left out. Empty when no way, or more than one, is found.
    private static func summingBoth(_ printed: [(t: ItemRowReading?, n: ItemRowReading?)], targets: Set<Decimal>,
                                    t: ItemContext, n: ItemContext) -> [Int: Decimal] {
        guard !targets.isEmpty else { return [:] }
        func inBlock(_ r: ItemRowReading?, _ c: ItemContext) -> Bool { r.map { c.block?.contains($0.position) ?? false } ?? false }
        var rows: [(index: Int, choices: [Decimal], single: Bool)] = []
        for (i, pair) in printed.enumerated() where inBlock(pair.t, t) || inBlock(pair.n, n) {
            var choices: [Decimal] = []
            for v in [pair.n?.amount.value, pair.t?.amount.value].compactMap({ $0 }) where !choices.contains(v) { choices.append(v) }
            rows.append((i, choices, pair.t == nil || pair.n == nil))
        }
        guard rows.count >= 2 else { return [:] }
        let disputed = rows.indices.filter { rows[$0].choices.count > 1 }
        guard disputed.count <= 4 else { return [:] }
        var solutions: [[Int: Decimal]] = []
        for mask in 0..<(1 << disputed.count) {
            var values = rows.map { $0.choices[0] }
            for (k, r) in disputed.enumerated() where mask & (1 << k) != 0 { values[r] = rows[r].choices[1] }
            let sum = values.reduce(0, +)
            if targets.contains(sum) {
                solutions.append(Dictionary(uniqueKeysWithValues: zip(rows.map(\.index), values)))
            } else {
                for r in rows.indices where rows[r].single && values[r] > 0 && targets.contains(sum - values[r]) {
                    var kept = Dictionary(uniqueKeysWithValues: zip(rows.map(\.index), values))
                    kept[rows[r].index] = nil
                    solutions.append(kept)
                }
            }
            if solutions.count > 1 { return [:] }
        }
        return solutions.first ?? [:]
    }
}
