import Foundation
import ReceiptModel

/// `receipts eval --cuts`: per folder, each field's figure on the whole photos beside the figure
/// on the same receipts cut into overlapping pictures and read as one receipt of several, and the
/// difference in points. A last block adds the folders up.
public struct CutComparison: Sendable {
    public var whole: [FolderReport]
    public var cut: [FolderReport]
    /// What the pictures are (`2 pictures (0–62 %, 38–100 %)`).
    public var label: String

    public init(whole: [FolderReport], cut: [FolderReport], label: String) {
        self.whole = whole
        self.cut = cut
        self.label = label
    }

    public var text: String {
        var blocks: [String] = []
        for (w, c) in zip(whole, cut) { blocks.append(block(name: w.folder, receipts: w.receipts, [w], [c])) }
        if whole.count > 1 { blocks.append(block(name: "all folders", receipts: whole.reduce(0) { $0 + $1.receipts }, whole, cut)) }
        return blocks.joined(separator: "\n")
    }

    private func block(name: String, receipts: Int, _ w: [FolderReport], _ c: [FolderReport]) -> String {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
        var lines = [pad("\(name) (\(receipts) receipts)", 34) + pad("whole photo", 20) + label]
        for field in EvaluatedField.allCases where field != .items {
            let (a, b) = (Self.sum(w, field), Self.sum(c, field))
            guard let x = a.accuracy, let y = b.accuracy else { continue }
            lines.append(pad("  " + field.rawValue, 34) + pad(String(format: "%.1f%% (%d/%d)", x * 100, a.correct, a.scored), 20)
                         + pad(String(format: "%.1f%% (%d/%d)", y * 100, b.correct, b.scored), 22) + String(format: "%+.1f", (y - x) * 100))
        }
        let (iw, ic) = (Self.items(w), Self.items(c))
        if let x = iw.f1, let y = ic.f1 {
            lines.append(pad("  item amounts F1", 34) + pad(String(format: "%.1f", x * 100), 20) + pad(String(format: "%.1f", y * 100), 22)
                         + String(format: "%+.1f", (y - x) * 100))
            lines.append(pad("  receipts with exactly their items", 34) + pad("\(iw.exact)/\(iw.receipts)", 20) + pad("\(ic.exact)/\(ic.receipts)", 22))
        }
        let failed = c.reduce(0) { $0 + $1.failed }
        if failed > 0 { lines.append("  \(failed) receipt\(failed == 1 ? "" : "s") failed as pictures") }
        return lines.joined(separator: "\n")
    }

    static func sum(_ reports: [FolderReport], _ field: EvaluatedField) -> FieldScore {
        reports.reduce(FieldScore()) { FieldScore(scored: $0.scored + $1.score(field).scored, correct: $0.correct + $1.score(field).correct) }
    }

    static func items(_ reports: [FolderReport]) -> ItemScore {
        var total = ItemScore()
        for r in reports {
            total.receipts += r.items.receipts
            total.exact += r.items.exact
            total.read += r.items.read
            total.labelled += r.items.labelled
            total.matched += r.items.matched
        }
        return total
    }
}
