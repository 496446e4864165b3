import Foundation
import ReceiptModel

/// The default analyzer: local rules over the OCR text, offline and fast (a median 2.9 ms a
/// receipt text on this project's 2-core machine: `receipts eval … --time-analyzer`).
///
/// When the first OCR pass gives no total, or an unlabelled total no cross-check confirms, and
/// the input can re-read the image, it asks for further passes (a close-up of the totals rows when
/// their amounts were unreadable, then `rereadPasses`) and keeps the best-supported reading; when
/// the date is still missing it asks for `dateRereadPasses` (a binarized page), which only fill
/// in missing fields. A numeric date read with low confidence gets its row read again on its own
/// (measured on ../shared/receipts: dates 91% → 92% SROIE, 79.2% → 81.8% WildReceipt, for a
/// close-up on a quarter of the receipts; a second one at 1.5× when the first cannot read the row
/// clearly either: SROIE 93% → 94%); a date read clearly gets the same close-up as a check, whose
/// agreement the learned model weighs; so does the vendor's name (a close-up of its rows, larger
/// when the name was read with low confidence, and a third reading where the two differ).
public struct HeuristicAnalyzer: ReceiptAnalyzer {
    public let name = "heuristic"
    /// Second passes tried in order while the total stays unconfirmed.
    public var rereadPasses: [OCRPass]

    /// One whole-page pass at 0.8 of the first pass's scale: OCR errors change with scale, and a
    /// smaller image costs about two thirds of the first pass. Measured on ../shared/receipts
    /// against psm 4 then psm 6 at 1.5× (twice the OCR): dates 88%/71% vs 88%/65% (SROIE/
    /// WildReceipt), totals 84%/67% vs 85%/69%.
    public static let defaultRereadPasses: [OCRPass] = [
        OCRPass(pageSegmentationMode: 6, scale: 0.8),
    ]

    /// Passes tried, in order, while the date alone is missing (the total is labelled or
    /// cross-checked).
    public var dateRereadPasses: [OCRPass]

    /// One whole-page pass at 0.8 scale after background normalization and binarization: it
    /// reads dates the gray page misreads, but misreads more totals. Measured on
    /// ../shared/receipts as the pass for a missing date against the gray 0.8 pass: dates 90%/
    /// 78% vs 88%/71% (SROIE/WildReceipt); as the pass for every case it cost WildReceipt totals.
    public static let defaultDateRereadPasses: [OCRPass] = [
        OCRPass(pageSegmentationMode: 6, scale: 0.8, binarize: true),
    ]

    public init(rereadPasses: [OCRPass] = HeuristicAnalyzer.defaultRereadPasses,
                dateRereadPasses: [OCRPass] = HeuristicAnalyzer.defaultDateRereadPasses) {
        self.rereadPasses = rereadPasses
        self.dateRereadPasses = dateRereadPasses
    }

    public func analyze(_ input: AnalysisInput, options: AnalysisOptions) async throws -> ReceiptAnalysis {
        let options = options.resolvingToday()
        var reading = Reading(ocr: input.ocr, options: options)
        if let reader = input.reader, reading.wantsReread {
            // (pass, made for the date alone)
            var planned: [(OCRPass, Bool)] = []
            if reading.totalWantsReread {
                if let region = reading.totalsRegion() {
                    planned.append((OCRPass(pageSegmentationMode: 6, scale: 2, region: region), false))
                }
                planned += rereadPasses.map { ($0, false) }
            }
            planned += dateRereadPasses.filter { p in !planned.contains { $0.0 == p } }.map { ($0, true) }
            for (pass, forDate) in planned where forDate ? reading.date == nil : reading.wantsReread {
                try Task.checkCancellation()
                guard let ocr = try await Self.read(reader, pass) else { continue }
                // A pass made for the date has no say on the total (the binarized page misreads more
                // amounts).
                reading.merge(Reading(ocr: ocr, options: options, isPartial: pass.region != nil), totals: !forDate)
            }
        }
        // The date's and the vendor's checks below are spent, by default, where they can leave the
        // receipt unflagged: not where the learned model's total is too unsure for that whatever the
        // date and the name read (a user looks at such a receipt anyway). On the 762 labelled
        // receipts that spares 59% of them the checks: 2.41 OCR passes a receipt instead of 3.72
        // (the ceiling is the 2.40 of before the checks), for 14 vendors and 6 dates fewer.
        var checks = options.checks != .none
        if options.checks == .unflagged, options.learnedModel, let model = LearnedModel.shipped {
            // Kept for the analysis: the checks change nothing the total's candidates read.
            let totals = CandidateProposer.totals(reading)
            reading.totalCandidates = totals
            checks = !model.flagsReview(totals)
        }
        // The date's row read again on its own (Tesseract then picks a threshold for that row
        // alone). A date read with low confidence takes the clearer reading, and when the close-up
        // cannot read the row clearly either, once more at 1.5× the scale. A date read clearly is
        // only checked: a misread digit comes with as high a confidence as a right one, but two
        // readings rarely make the same slip, so whether they agree is what the learned model
        // weighs for the date's probability (held out: with the check, SROIE receipts left
        // unflagged at 97% right went from 4% to 40%; the close-up of one row costs about 3% of
        // a receipt's OCR).
        if checks, let reader = input.reader, let date = reading.date, let row = reading.dateRow,
           let rowBox = row.box, let region = reading.rowRegion(row) {
            // A date in words (`28 Aug 2024`) has no numeric word to judge: it is checked as a
            // clear one.
            let weak = DateFinder.dateWordConfidence(row) ?? 100
            let orderHint = reading.dateOrderHint
            /// The date the row reads at `scale`, with its line: nil when the pass is spent or reads
            /// no date on that row.
            func closeUp(_ scale: Double) async throws -> (DateFinding, ReceiptLine)?? {
                try Task.checkCancellation()
                guard let ocr = try await Self.read(reader, OCRPass(pageSegmentationMode: 6, scale: scale, region: region)) else { return nil }
                let closeUp = ReceiptDocument(ocr: ocr)
                guard let other = DateFinder.find(closeUp, orderHint: orderHint, defaultOrder: options.dateOrder, today: options.today ?? .today()),
                      let line = other.line.flatMap({ i in closeUp.lines.first { $0.index == i } }), let lineBox = line.box,
                      // The same row, not a neighbour the margin let in (a due or expiry date).
                      abs(Int(Double(lineBox.midY) / scale) + region.y - rowBox.midY) * 2 <= rowBox.height else { return .some(nil) }
                return (other, line)
            }
            var readings = [date]
            var readLarger = false, spent = false
            for scale in weak < 85 ? [1.0, 1.5] : [1.0] {
                guard let read = try await closeUp(scale) else { spent = true; break }
                readLarger = readLarger || scale == Self.thirdReadingScale
                guard let (other, line) = read else { continue }
                readings.append(other)
                let clearer = DateFinder.dateWordConfidence(line)
                reading.dateCheck = other.date == date.date ? .same : .other
                if weak < 85, other.date != date.date, let clearer, clearer > weak {
                    reading.date = other
                    break
                }
                if (clearer ?? 100) >= 50 { break }
            }
            // As for the vendor: two readings that differ get a third (at 2× when the row was read at
            // 1.5× already), and a date two of them agree on is kept. Unlike the vendor's, it still
            // counts as read otherwise: as agreement, it made held-out needsReview on SROIE less
            // right (96.8% vs 98.8% at 5 folds); as it is, the same (98.8%), and dates on the unseen
            // sets 88.4% → 89.7% (sroie-2) and 74.8% → 75.5% (wildreceipt-2), sroie 94% → 93%.
            if reading.dateCheck == .other, !spent,
               let third = try await closeUp(readLarger ? 2 : Self.thirdReadingScale) ?? nil,
               let agreed = readings.first(where: { $0.date == third.0.date }) {
                reading.date = agreed
            }
        }
        // The vendor's rows read again on their own: a name read with low confidence at twice the
        // scale, keeping the clearer reading of the same name; a name read clearly at the first
        // scale, as a check. As for the date, two readings rarely make the same slip, so whether
        // they agree is what the learned model weighs for the vendor's probability.
        if checks, let reader = input.reader, let vendor = reading.vendor, let region = reading.vendorRegion() {
            /// The name the vendor's rows read at `scale`.
            func nameRead(at scale: Double) async throws -> VendorFinding? {
                try Task.checkCancellation()
                return try await Self.read(reader, OCRPass(pageSegmentationMode: 6, scale: scale, region: region))
                    .flatMap { VendorFinder.find(ReceiptDocument(ocr: $0)) }
            }
            let weak = vendor.readConfidence < 80
            let name = NameMatching.normalized(vendor.name)
            if let other = try await nameRead(at: weak ? 2 : 1) {
                let otherName = NameMatching.normalized(other.name)
                reading.vendorCheck = otherName == name ? .same : .other
                if weak, other.readConfidence >= vendor.readConfidence + 5, other.meanConfidence >= vendor.meanConfidence,
                   Reading.sameName(other.name, vendor.name),
                   Self.noMoreSlips(other.name, than: vendor.name),
                   otherName.count * 10 >= name.count * 9 {
                    reading.vendor = other
                }
                // Two readings that differ get a third, at another scale; a name two of the three
                // readings agree on is kept (with the same guards as a clearer reading), and counts
                // as checked.
                if otherName != name, let current = reading.vendor, let third = try await nameRead(at: Self.thirdReadingScale) {
                    let thirdName = NameMatching.normalized(third.name)
                    if let agreed = [current.name, other.name, vendor.name].first(where: { NameMatching.normalized($0) == thirdName }),
                       agreed == current.name || Self.noMoreSlips(agreed, than: current.name) {
                        reading.vendor?.name = agreed
                        reading.vendorCheck = .same
                    } else if let voted = Self.letterVote(current.name, other.name, third.name), voted != current.name,
                              Self.noMoreSlips(voted, than: current.name) {
                        // No two agree: a name voted letter by letter, still unsettled for the model
                        // (vendors right: sroie-2 +4 receipts, sroie +1, the WildReceipt sets the same).
                        reading.vendor?.name = voted
                    }
                }
            }
        }
        // Letters OCR confused in the name's weakly read words, mended by the dictionary.
        if let reader = input.reader, let vendor = reading.vendor {
            let suspects = WordRepair.suspects(in: vendor)
            if !suspects.isEmpty, let known = try? await reader.dictionaryWords(among: WordRepair.lookups(for: suspects)) {
                reading.vendor?.name = WordRepair.repair(vendor.name, suspects: suspects, known: known)
            }
        }
        var analysis = reading.analysis(options: options, analyzer: name)
        if let passes = input.reader?.passesRead, passes > 1 { analysis.details.append(("ocrPasses", .int(passes))) }
        return analysis
    }

    /// The scale of the vendor's and the date's third reading, when the first two differ. Chosen
    /// for the vendor on `sroie` and
    /// `wildreceipt` (vendors right: 127 of 210 without it; 130 at 1.5, 127 at 0.8, 117 at 2, 124
    /// at 1 binarized); measured on `sroie-2` and `wildreceipt-2`, which it was not chosen on:
    /// vendors 55.6% → 59.5% and 43.4% → 45.2%, for a small pass on a third of the receipts.
    package static let thirdReadingScale = 1.5

    /// A further pass, or nil when the reader has none left or it failed: a failed close-up leaves
    /// the readings already made. Only cancellation stops the analysis.
    static func read(_ reader: any PageReader, _ pass: OCRPass) async throws -> OCRResult? {
        do {
            return try await reader.read(pass)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
    }

    /// Three readings of a name none of which two agree on, voted letter by letter: word by word,
    /// a word two readings agree on, else, where the three have the same length, each letter two
    /// of them agree on (`MR O.I.Y.`, `MR D.L.Y.`, `MR D.I.Y.` → `MR D.I.Y.`). Nil when the readings
    /// have different numbers of words, or a letter has no majority.
    package static func letterVote(_ a: String, _ b: String, _ c: String) -> String? {
        let words = [a, b, c].map { $0.split(separator: " ").map(String.init) }
        guard !words[0].isEmpty, words[1].count == words[0].count, words[2].count == words[0].count else { return nil }
        var out: [String] = []
        for i in words[0].indices {
            let (x, y, z) = (words[0][i], words[1][i], words[2][i])
            if x == y || x == z { out.append(x); continue }
            if y == z { out.append(y); continue }
            guard x.count == y.count, x.count == z.count else { return nil }
            var letters = ""
            for (p, (q, r)) in zip(x, zip(y, z)) {
                if p == q || p == r { letters.append(p) } else if q == r { letters.append(q) } else { return nil }
            }
            out.append(letters)
        }
        return out.joined(separator: " ")
    }

    /// `name` has no more digits than `than`, nor small letters amid capitals: "LA. CAMERA" is not
    /// mended by "1A CAMERA", nor "MR. D.I.Y." by "MR. DeI.Y.".
    package static func noMoreSlips(_ name: String, than other: String) -> Bool {
        name.filter(\.isNumber).count <= other.filter(\.isNumber).count && caseSlips(name) <= caseSlips(other)
    }

    /// Small letters read between two capitals (`DeI.Y.`): a sign of a misread.
    package static func caseSlips(_ name: String) -> Int {
        let letters = Array(name)
        guard letters.count >= 3 else { return 0 }
        return (1..<(letters.count - 1)).filter { i in
            letters[i].isLowercase && letters[i - 1].isUppercase && letters[i + 1].isUppercase
        }.count
    }

    /// Analyzes one OCR result with no further passes (synchronous; for benchmarks and tools).
    public func analyze(ocr: OCRResult, options: AnalysisOptions = AnalysisOptions()) -> ReceiptAnalysis {
        Reading(ocr: ocr, options: options).analysis(options: options, analyzer: name)
    }

    /// Analyzes plain receipt text, one printed row per line.
    public func analyze(text: String, options: AnalysisOptions = AnalysisOptions()) -> ReceiptAnalysis {
        Reading(document: ReceiptDocument(text: text), options: options).analysis(options: options, analyzer: name)
    }
}

/// What a second reading of a field's rows (the date's, the vendor's), on their own, found.
package enum ReadCheck: Sendable {
    /// Not read again, or nothing of the kind read in the close-up.
    case none
    /// The same date or name.
    case same
    /// Another one (kept when it was read more clearly than a weak first reading).
    case other
}

/// What the rules read from one OCR pass (or several merged).
package struct Reading {
    package var document: ReceiptDocument
    package var rows: [AmountLine]
    package var total: TotalFinding?
    package var date: DateFinding?
    package var vendor: VendorFinding?
    package var currency: CurrencyFinding?
    package var lineItems: [LineItem]
    /// A second pass agreed with this one on the total.
    package var confirmedByReread = false
    /// The first pass's total, and the totals further passes found.
    package var firstTotal: TotalFinding?
    /// The total's candidates once proposed for the checks' decision (`LearnedModel.flagsReview`),
    /// after which nothing the total's features read changes.
    package var totalCandidates: [Candidate]?
    /// The first pass's date (a later pass's date is kept only when the first pass read none).
    package var firstDate: DateFinding?
    package var otherTotals: [TotalFinding] = []
    /// What a close-up of the date's row read.
    package var dateCheck: ReadCheck = .none
    /// What a close-up of the vendor's rows read.
    package var vendorCheck: ReadCheck = .none
    /// The amount rows of further passes, for a tax the first pass did not read.
    package var otherRows: [[AmountLine]] = []

    package init(ocr: OCRResult, options: AnalysisOptions, isPartial: Bool = false) {
        self.init(document: ReceiptDocument(ocr: ocr), options: options, isPartial: isPartial)
    }

    package init(document: ReceiptDocument, options: AnalysisOptions, isPartial: Bool = false) {
        self.document = document
        rows = AmountLine.build(document)
        lineItems = isPartial ? [] : LineItemParser.parse(rows)
        let itemSum = !lineItems.isEmpty ? lineItems.compactMap(\.amount).reduce(0, +) : nil
        total = TotalFinder.find(rows, lineItemSum: itemSum)
        firstTotal = total
        currency = isPartial ? nil : CurrencyDetector.detect(document, amounts: rows)
        date = isPartial ? nil : DateFinder.find(document, orderHint: dateOrderHint, defaultOrder: options.dateOrder, today: options.today ?? .today())
        vendor = isPartial ? nil : VendorFinder.find(document, rows: rows)
        firstDate = date
    }

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

    /// The band of the image holding the vendor's rows, with a row's height of margin.
    package func vendorRegion() -> BoundingBox? {
        vendor?.box.flatMap { band(around: $0, margin: max($0.height / 2, 12)) }
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

    package func analysis(options: AnalysisOptions, analyzer: String) -> ReceiptAnalysis {
        let taxFinding = TaxFinder.find(rows, total: total?.value)
            ?? otherRows.lazy.compactMap { TaxFinder.find($0, total: self.total?.value) }.first
        let category = CategoryClassifier.forTaxonomy(options.taxonomy).classify(document, vendor: vendor?.name)
        var currencyCode = currency?.code
        var currencyConfidence = currency?.confidence ?? 0
        if currencyCode == nil, let fallback = options.defaultCurrency {
            currencyCode = fallback
            currencyConfidence = 0.3
        }
        var confidence = FieldConfidence(
            vendor: vendor?.confidence ?? 0, date: date?.confidence ?? 0, total: total?.confidence ?? 0,
            tax: taxFinding?.confidence ?? 0, currency: currencyConfidence, category: category.confidence)
        confidence.needsReview = vendor == nil || date == nil || total == nil
            || confidence.total < 0.6 || confidence.date < 0.5
            || (taxFinding.map { t in total.map { t.value >= $0.value } ?? false } ?? false)
        var chosenTotal = total?.value, chosenDate = date?.date, chosenTax = taxFinding?.value
        let model = options.learnedModel ? LearnedModel.shipped : nil
        // Proposed only when something uses them (the rows' dates cost a date search per row).
        let candidates = model != nil || options.collectCandidates ? LearnedField.allCases.map { field -> [Candidate] in
            switch field {
            case .total: totalCandidates ?? CandidateProposer.totals(self)
            case .date: CandidateProposer.dates(self, options: options)
            case .vendor: CandidateProposer.vendor(self)
            case .tax: CandidateProposer.taxes(self, finding: taxFinding, total: total?.value)
            }
        } : []
        if let model {
            Self.applyLearned(model, candidates: candidates, total: &chosenTotal, date: &chosenDate, tax: &chosenTax,
                              confidence: &confidence)
            if let t = chosenTotal, let tax = chosenTax, tax >= t { confidence.needsReview = true }
            if vendor == nil { confidence.needsReview = true }
        }
        var analysis = ReceiptAnalysis(vendor: vendor?.name, date: chosenDate, total: chosenTotal, tax: chosenTax,
                                       currency: currencyCode, category: category.name, lineItems: lineItems,
                                       confidence: confidence, analyzer: analyzer)
        if options.collectCandidates {
            analysis.details.append(("candidates", .array(candidates.joined().map { c in
                .object([("field", .string(c.field.rawValue)), ("value", .string(c.value)),
                         ("features", .array(c.features.map { .number(String($0)) }))])
            })))
        }
        return analysis
    }

    /// The learned model's choice of total, date and tax among the rules' candidates, and calibrated
    /// probabilities for total, date, vendor and tax; `needsReview` when the total or the date is
    /// missing or less likely right than the thresholds chosen on held-out folds.
    package static func applyLearned(_ model: LearnedModel, candidates: [[Candidate]], total: inout Decimal?,
                             date: inout CalendarDate?, tax: inout Decimal?, confidence: inout FieldConfidence) {
        var review = false
        for list in candidates {
            guard let field = list.first?.field, let (best, p) = model.choose(list) else { continue }
            let below = model.flagsReview(field, probability: p)
            switch field {
            case .total:
                total = Decimal(string: best.value)
                confidence.total = p
                review = review || below
            case .date:
                date = CalendarDate(iso: best.value)
                confidence.date = p
                review = review || below
            case .vendor:
                confidence.vendor = p
            case .tax:
                // Where the rules found a tax, the model chooses among the amounts; where they found
                // none, the receipt may print none (a parking ticket, a vehicle-tax notice), so the
                // model's amount is taken only when more likely right than not, or when the receipt
                // says it is a tax (`CandidateProposer.showsTax`).
                if tax != nil || p >= CandidateProposer.taxFloor || CandidateProposer.showsTax(best) {
                    tax = Decimal(string: best.value)
                    confidence.tax = p
                }
            }
        }
        if total == nil || date == nil { review = true }
        confidence.needsReview = review
    }
}
