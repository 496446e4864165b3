import Foundation
import ReceiptModel

/// `receipts eval --replay`: a labelled folder read in order as one person who confirms each
/// receipt with its truth (issue 57), each receipt read with that person's memory of shops and
/// without it; each field scored on receipts from a shop confirmed earlier in the replay (repeat)
/// and on the others (first seen). With a naming suffix (`--rename " (mine)"`) a repeat shop's
/// vendor is right only when it carries the person's naming ("<printed name> (mine)"), which no
/// reading can produce; a first-seen shop's is scored as printed.
public struct ReplayReport: Sendable {
    /// One cell of the table: a kind of receipt (repeat or first seen) read with or without memory.
    public struct Cell: Sendable, Equatable {
        public var receipts = 0
        public var vendor = FieldScore()
        public var total = FieldScore()
        public var date = FieldScore()
        public var category = FieldScore()
        public var unflagged = 0
        /// Unflagged receipts right on every known vendor, total and date.
        public var unflaggedRight = 0

        public init() {}

        mutating func add(truth: GroundTruth, analysis: ReceiptAnalysis?) {
            receipts += 1
            var allRight = true
            func score(_ field: EvaluatedField, _ s: inout FieldScore, counts: Bool = true) {
                guard EvaluationScorer.expectedText(field, truth) != nil else { return }
                s.scored += 1
                let right = analysis.map { EvaluationScorer.matches(field, truth: truth, analysis: $0) } ?? false
                if right { s.correct += 1 }
                if counts { allRight = allRight && right }
            }
            score(.vendor, &vendor)
            score(.total, &total)
            score(.date, &date)
            score(.category, &category, counts: false)
            if let analysis, !analysis.confidence.needsReview {
                unflagged += 1
                if allRight { unflaggedRight += 1 }
            }
        }
    }

    public var folder: String
    public var suffix: String?
    /// [memory on, memory off] × [repeat, first seen].
    public var cells: [[Cell]] = [[Cell(), Cell()], [Cell(), Cell()]]
    /// Repeat-shop receipts whose vendor (with memory) was wrong, and why.
    public var misses: [(file: String, kind: String, expected: String, got: String)] = []
    /// Second pictures of receipts already stored: how many, caught as `possibleDuplicateOf` the first.
    public var secondPictures = 0, secondCaught = 0
    /// First pictures (every receipt is another purchase) flagged as a possible duplicate: files.
    public var firstFlagged: [String] = []
    /// Another owner's copies of the receipts: how many, flagged as a possible duplicate.
    public var otherOwnersCopies = 0, otherOwnersFlagged = 0
    /// Another owner's receipts from shops the person confirmed: how many, carrying the person's naming.
    public var otherOwnerRepeats = 0, otherOwnerCarryingNaming = 0
    public var identity = IdentityScore()

    public init(folder: String, suffix: String?) {
        self.folder = folder
        self.suffix = suffix
    }

    /// Scores one receipt read with (`on`) and without (`off`) the memory; `repeatShop`: its shop
    /// was confirmed earlier in the replay.
    public mutating func add(file: String, truth: GroundTruth, on: ReceiptAnalysis?, off: ReceiptAnalysis?, repeatShop: Bool) {
        let expected = Self.expected(truth, repeatShop: repeatShop, suffix: suffix)
        cells[0][repeatShop ? 0 : 1].add(truth: expected, analysis: on)
        cells[1][repeatShop ? 0 : 1].add(truth: expected, analysis: off)
        identity.add(file: file, truth: truth, analysis: on)
        if repeatShop, let name = expected.vendor, let on, !EvaluationScorer.matches(.vendor, truth: expected, analysis: on) {
            let offered = on.candidates.contains { $0.field == .vendor && NameMatching.normalized($0.value) == NameMatching.normalized(name) }
            let kind = on.memory != nil ? "another shop's name" : offered ? "recalled, not chosen" : "not recalled"
            misses.append((file, kind, name, on.vendor ?? "null"))
        } else if !repeatShop, let on, let off, on.vendor != off.vendor, !EvaluationScorer.matches(.vendor, truth: expected, analysis: on) {
            // A shop seen first that the memory named wrong (a key it shares with another shop).
            misses.append((file, "first seen, named by the memory", expected.vendor ?? "null", on.vendor ?? "null"))
        }
    }

    /// The truth as a repeat shop's receipt is scored: its vendor under the person's naming.
    public static func expected(_ truth: GroundTruth, repeatShop: Bool, suffix: String?) -> GroundTruth {
        guard repeatShop, let suffix, let vendor = truth.vendor else { return truth }
        var renamed = truth
        renamed.vendor = named(vendor, suffix: suffix)
        renamed.vendorAlternatives = []
        return renamed
    }

    /// `GARDENIA BAKERIES (KL) SDN BHD` + ` (mine)`.
    public static func named(_ vendor: String, suffix: String) -> String {
        vendor + (suffix.hasPrefix(" ") ? suffix : " " + suffix)
    }

    static func pct(_ n: Int, _ d: Int) -> String { d == 0 ? "–" : String(format: "%d / %d (%.1f %%)", n, d, Double(n) / Double(d) * 100) }

    /// The table (markdown) and the lines under it.
    public var text: String {
        var out = "### \(folder)\n\n"
        let vendorWhat = suffix == nil ? "vendor" : "vendor (repeat: the person's naming)"
        out += "| memory | receipts | n | \(vendorWhat) | total | date | unflagged | right on vendor + total + date among unflagged | category |\n"
        out += "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
        for (m, mode) in ["on", "off"].enumerated() {
            for (k, kind) in ["repeat shop", "first seen"].enumerated() {
                let c = cells[m][k]
                out += "| \(mode) | \(kind) | \(c.receipts) | \(Self.pct(c.vendor.correct, c.vendor.scored)) | \(Self.pct(c.total.correct, c.total.scored)) | "
                    + "\(Self.pct(c.date.correct, c.date.scored)) | \(Self.pct(c.unflagged, c.receipts)) | \(Self.pct(c.unflaggedRight, c.unflagged)) | "
                    + "\(Self.pct(c.category.correct, c.category.scored)) |\n"
            }
        }
        out += "\n"
        if !identity.line.isEmpty { out += identity.line.trimmingCharacters(in: .whitespaces) + "\n" }
        var byKind: [String: Int] = [:]
        for miss in misses { byKind[miss.kind, default: 0] += 1 }
        if !misses.isEmpty {
            out += "repeat-shop vendor misses with memory: " + byKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
        }
        if secondPictures > 0 || otherOwnersCopies > 0 {
            out += "second pictures caught as possibleDuplicateOf: \(secondCaught) of \(secondPictures); first pictures flagged: \(firstFlagged.count)"
                + (firstFlagged.isEmpty ? "" : " (\(firstFlagged.joined(separator: ", ")))")
                + "; another owner's copies flagged: \(otherOwnersFlagged) of \(otherOwnersCopies)\n"
        }
        if otherOwnerRepeats > 0 {
            out += "another owner's receipts from the same shops carrying the person's naming: \(otherOwnerCarryingNaming) of \(otherOwnerRepeats)\n"
        }
        return out
    }
}
