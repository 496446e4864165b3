import Foundation
import ReceiptAnalyzers
import ReceiptModel

/// How far the confidences can be trusted, from labelled receipts: per folder, the share of
/// receipts not flagged for review and how often those have the right total and date; per field,
/// the receipts in each tenth of confidence and how many of them are right. (On receipts the
/// shipped model was trained on this is not a held-out figure: `make train` prints those.)
public struct ReliabilityTable {
    private var review: [String: (receipts: Int, unflagged: Int, right: Int)] = [:]
    private var folders: [String] = []
    private var bins: [EvaluatedField: [Int: (count: Int, right: Int)]] = [:]

    public init() {}

    public mutating func add(folder: String, truth: GroundTruth, analysis: ReceiptAnalysis?) {
        if !folders.contains(folder) { folders.append(folder) }
        guard let analysis, truth.total != nil || truth.date != nil else {
            review[folder, default: (0, 0, 0)].receipts += 1
            return
        }
        let totalRight = truth.total == nil || EvaluationScorer.matches(.total, truth: truth, analysis: analysis)
        let dateRight = truth.date == nil || EvaluationScorer.matches(.date, truth: truth, analysis: analysis)
        var r = review[folder, default: (0, 0, 0)]
        r.receipts += 1
        if !analysis.confidence.needsReview {
            r.unflagged += 1
            if totalRight && dateRight { r.right += 1 }
        }
        review[folder] = r
        let confidences: [(EvaluatedField, Double, Bool)] = [
            (.total, analysis.confidence.total, truth.total != nil),
            (.date, analysis.confidence.date, truth.date != nil),
            (.vendor, analysis.confidence.vendor, truth.vendor != nil),
        ]
        for (field, confidence, known) in confidences where known {
            let bin = min(9, max(0, Int(confidence * 10)))
            var b = bins[field, default: [:]][bin, default: (0, 0)]
            b.count += 1
            if EvaluationScorer.matches(field, truth: truth, analysis: analysis) { b.right += 1 }
            bins[field, default: [:]][bin] = b
        }
    }

    public var text: String {
        var lines = ["", "needsReview: receipts not flagged, and how often their total and date are right"]
        for folder in folders {
            let r = review[folder, default: (0, 0, 0)]
            lines.append("  \(folder): " + String(format: "%d of %d unflagged (%.1f%%), right %.1f%%", r.unflagged, r.receipts,
                                100 * Double(r.unflagged) / Double(max(1, r.receipts)), 100 * Double(r.right) / Double(max(1, r.unflagged))))
        }
        lines.append("")
        lines.append("reliability: confidence\treceipts\tright")
        for field in [EvaluatedField.total, .date, .vendor] {
            for (bin, b) in (bins[field] ?? [:]).sorted(by: { $0.key < $1.key }) {
                lines.append("  \(field.rawValue) " + String(format: "%.1f–%.1f\t%d\t%.0f%%", Double(bin) / 10, Double(bin + 1) / 10,
                                    b.count, 100 * Double(b.right) / Double(b.count)))
            }
        }
        return lines.joined(separator: "\n")
    }
}
