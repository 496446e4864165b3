import Foundation
import ReceiptModel

/// What the rules read from one OCR pass, or from several merged (`merge`).
package struct Reading {
    package var document: ReceiptDocument
    package var rows: [AmountLine]
    package var total: TotalFinding?
    package var date: DateFinding?
    package var vendor: VendorFinding?
    package var currency: CurrencyFinding?
    package var lineItems: [LineItem]
    /// The receipt's money has no minor units (yen, rupiah…): its amounts are read whole.
    package private(set) var wholeUnits = false
    /// A further pass read the first pass's total too.
    package private(set) var confirmedByReread = false
    /// The first pass's total.
    package private(set) var firstTotal: TotalFinding?
    /// The first pass's date (a later pass's date is kept only when the first pass read none).
    package private(set) var firstDate: DateFinding?
    /// The totals further passes read.
    package private(set) var otherTotals: [TotalFinding] = []
    /// The amount rows of further passes, for a tax the first pass did not read.
    package private(set) var otherRows: [[AmountLine]] = []

    package init(ocr: OCRResult, options: AnalysisOptions, isPartial: Bool = false, wholeUnits: Bool? = nil) {
        self.init(document: ReceiptDocument(ocr: ocr), options: options, isPartial: isPartial, wholeUnits: wholeUnits)
    }

    /// - Parameters:
    ///   - isPartial: the reading is of a few rows (a close-up): only its amounts count.
    ///   - wholeUnits: the receipt's money has no minor units (found on the whole page for a
    ///     close-up); nil to decide from this reading's currency, or the default currency.
    package init(document: ReceiptDocument, options: AnalysisOptions, isPartial: Bool = false, wholeUnits: Bool? = nil) {
        self.document = document
        rows = AmountLine.build(document)
        let detected = isPartial ? nil : CurrencyDetector.detect(document, amounts: rows)
        let whole = wholeUnits ?? (Currency.decimals(of: detected?.code ?? options.defaultCurrency) == 0
                                   && (detected?.code ?? options.defaultCurrency) != nil
                                   || detected == nil && Self.printsWholeUnits(document))
        if whole { rows = AmountLine.build(document, wholeUnits: true) }
        self.wholeUnits = whole
        lineItems = isPartial ? [] : LineItemParser.parse(rows)
        let itemSum = !lineItems.isEmpty ? lineItems.compactMap(\.amount).reduce(0, +) : nil
        total = TotalFinder.find(rows, lineItemSum: itemSum)
        // A letter's amount paid or due now is its total, not an annual premium or a balance
        // brought forward (issue 58).
        if !isPartial, LetterParts.isLetter(document), let paid = LetterParts.paidNow(rows), paid.value != total?.value {
            total = TotalFinding(value: paid.value, confidence: 0.7, labelStrength: 7, crossChecked: false,
                                 score: max(total?.score ?? 0, 10) + 1)
        }
        firstTotal = total
        currency = isPartial ? nil : whole ? CurrencyDetector.detect(document, amounts: rows) : detected
        date = isPartial ? nil : DateFinder.find(document, orderHint: dateOrderHint, defaultOrder: options.dateOrder, today: options.today ?? .today())
        vendor = isPartial ? nil : VendorFinder.find(document, rows: rows)
        firstDate = date
    }

    /// Amounts of ten thousand or more grouped in thousands (`50,000`, `197.285`) on three rows or
    /// more, and no amount with cents (`12.50`) anywhere: money without minor units though no
    /// currency is printed (rupiah, won, dong …), read as whole units.
    static func printsWholeUnits(_ document: ReceiptDocument) -> Bool {
        var grouped = 0
        for line in document.lines {
            if cents.matches(line.text) { return false }
            if thousands.matches(line.text) { grouped += 1 }
        }
        return grouped >= 3
    }

    /// Ten thousand or more (`50,000`, `1.250.000`): `6.900` may be three decimals (Omani rials).
    private static let thousands = Pattern(#"(?<![\d.,])(?:\d{2,3}(?:[.,]\d{3})+|\d(?:[.,]\d{3}){2,})(?![\d.,]|[.,]\d)"#)
    private static let cents = Pattern(#"(?<![\d.,])\d{1,6}[.,]\d{2}(?![\d])"#)

    /// The order of an ambiguous numeric date this receipt's currency or country implies.
    package var dateOrderHint: DateOrder? {
        currency?.dateOrder ?? DateFinder.regionalOrder(document, rows: rows)
    }

    /// The row the date was read from, when it is the first pass's date (a later pass's row
    /// numbers refer to that pass's lines, not to `document`'s).
    package var dateRow: ReceiptLine? {
        guard let date, date == firstDate else { return nil }
        return date.line.flatMap { i in document.lines.first { $0.index == i } }
    }

    /// A band of the image around one row, the full width, with a row's height of margin.
    package func rowRegion(_ row: ReceiptLine) -> BoundingBox? {
        row.box.flatMap { band(around: $0, margin: max($0.height, 12)) }
    }

    /// The full width of the image from `margin` above `box` to `margin` below it.
    package func band(around box: BoundingBox, margin: Int) -> BoundingBox? {
        guard document.imageWidth > 0, box.height > 0 else { return nil }
        let y = max(0, box.y - margin)
        let maxY = min(document.imageHeight, box.maxY + margin)
        return BoundingBox(x: 0, y: y, width: document.imageWidth, height: maxY - y)
    }

    /// The band of the image holding the vendor's rows, with a row's height of margin.
    package func vendorRegion() -> BoundingBox? {
        vendor?.box.flatMap { band(around: $0, margin: max($0.height / 2, 12)) }
    }

    package var wantsReread: Bool {
        date == nil || totalWantsReread
    }

    /// No total, or one that needs the support of another reading.
    package var totalWantsReread: Bool {
        guard let total else { return true }
        return !confirmedByReread && Self.needsSupport(total)
    }

    /// The rows of the totals block when a total label was read without a readable amount.
    package func totalsRegion() -> BoundingBox? {
        let unreadable = rows.filter { $0.role.totalStrength >= 7 && ($0.amounts.isEmpty || $0.amounts.allSatisfy(\.repaired)) }
        guard let first = unreadable.first?.line.box else { return nil }
        return band(around: first, margin: max(first.height * 3, 20))
    }

    /// The total the passes support best: each value's best evidence score, +1 for every
    /// further pass that read the same value, +1.5 for the first pass (the default reading, the
    /// best one on most receipts), -2 for an unlabelled value when some pass read a labelled
    /// total. Later passes overturn the first one only with clearly better evidence.
    package static func vote(first: TotalFinding?, others: [TotalFinding]) -> TotalFinding? {
        var tally: [Decimal: (best: TotalFinding, count: Int)] = [:]
        for f in [first].compactMap({ $0 }) + others {
            if let t = tally[f.value] {
                tally[f.value] = (f.score > t.best.score ? f : t.best, t.count + 1)
            } else {
                tally[f.value] = (f, 1)
            }
        }
        let labelled = tally.values.contains { $0.best.labelStrength >= 7 }
        func support(_ v: Decimal, _ t: (best: TotalFinding, count: Int)) -> Double {
            var s = t.best.score + Double(t.count - 1) + (v == first?.value ? 1.5 : 0)
            if labelled && t.best.labelStrength == 0 { s -= 2 }
            return s
        }
        // Ties: the first pass's value, then the larger one (never dictionary order).
        guard let (_, winner) = tally.max(by: { a, b in
            let sa = support(a.key, a.value), sb = support(b.key, b.value)
            if sa != sb { return sa < sb }
            if (a.key == first?.value) != (b.key == first?.value) { return b.key == first?.value }
            return a.key < b.key
        }) else { return nil }
        var finding = winner.best
        if winner.count > 1 {
            finding.confidence = min(1, finding.confidence + 0.2)
            finding.crossChecked = true
        }
        return finding
    }

    /// Two readings of the same printed name: letters and digits differ in at most a third.
    package static func sameName(_ a: String, _ b: String) -> Bool {
        let x = NameMatching.normalized(a), y = NameMatching.normalized(b)
        guard !x.isEmpty, !y.isEmpty else { return false }
        return LabelText.editDistance(x, y) * 3 <= max(x.count, y.count)
    }

    /// An unlabelled total no cross-check confirms. (A labelled one is read again no better:
    /// measured on ../shared/receipts, the same accuracy with a sixth fewer second passes.)
    package static func needsSupport(_ total: TotalFinding) -> Bool {
        !total.crossChecked && total.labelStrength == 0
    }

    /// Takes another pass into account: a total both passes read is confirmed; otherwise the
    /// better-supported one wins, unless the first pass's total was labelled or cross-checked (a
    /// pass made for a missing date then only confirms it: measured on ../shared/receipts, its
    /// votes turned three right totals wrong and no wrong one right). Fields the first pass
    /// missed are taken from the other.
    package mutating func merge(_ other: Reading, totals: Bool = true) {
        if totals, let o = other.total, !isImplausibleTotal(o.value) {
            if let first = firstTotal, first.value == o.value { confirmedByReread = true }
            if firstTotal.map(Self.needsSupport) ?? true {
                otherTotals.append(o)
                total = Reading.vote(first: firstTotal, others: otherTotals)
            }
        }
        otherRows.append(other.rows)
        if date == nil { date = other.date }
        if vendor == nil { vendor = other.vendor }
        if currency == nil { currency = other.currency }
    }

    /// A total another pass read that this reading's amounts rule out: more than ten times every
    /// amount it found and more than twice its items together (digits read twice: €28.95 as
    /// "€2838.95"), or less than half its dearest item (a digit lost).
    package func isImplausibleTotal(_ value: Decimal) -> Bool {
        let amounts = rows.flatMap(\.amounts).map(\.value)
        guard amounts.count >= 3, let largest = amounts.max(), largest > 0 else { return false }
        let items = lineItems.compactMap(\.amount)
        if let dearest = items.max(), value * 2 < dearest { return true }
        return value > max(largest * 10, items.reduce(0, +) * 2)
    }
}
