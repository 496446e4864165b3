import Foundation
import Testing
import ReceiptModel
import ReceiptAnalyzers
import ReceiptEvaluation

/// Development harness: runs the heuristic analyzer over cached `tesseract --psm 6` TSV of
/// ../shared/receipts and prints per-field accuracy and the misses. Not a gate.
///
///     RECEIPTS_DEV_EVAL=1 swift test --filter DevEvalHarness
///
/// `RECEIPTS_OCR_CACHE` (default ../ocr-cache) holds `<set>/<name>.tsv`; `RECEIPTS_SHARED`
/// (default ../shared/receipts) the images and ground truth; `RECEIPTS_DEV_EVAL_FIELDS=total,date`
/// limits the printed misses.
@Suite struct DevEvalHarness {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let environment = ProcessInfo.processInfo.environment
    static let cache = URL(fileURLWithPath: environment["RECEIPTS_OCR_CACHE"]
        ?? root.deletingLastPathComponent().appendingPathComponent("ocr-cache").path)
    static let shared = URL(fileURLWithPath: environment["RECEIPTS_SHARED"]
        ?? root.deletingLastPathComponent().appendingPathComponent("shared/receipts").path)
    static let requested = environment["RECEIPTS_DEV_EVAL"] == "1"
    static let dataPresent = FileManager.default.fileExists(atPath: cache.path)
        && FileManager.default.fileExists(atPath: shared.path)

    @Test(.enabled(if: requested, "set RECEIPTS_DEV_EVAL=1 to run the dev accuracy harness"),
          .enabled(if: dataPresent, "needs the OCR cache (../ocr-cache) and ../shared/receipts; not found"))
    func accuracyOnCachedOCR() async throws {
        let analyzer = HeuristicAnalyzer()
        let options = AnalysisOptions()
        let fields = Set((Self.environment["RECEIPTS_DEV_EVAL_FIELDS"] ?? "").split(separator: ",").map(String.init))
        let show = (Self.environment["RECEIPTS_DEV_EVAL_SHOW"] ?? "").split(separator: ",").map(String.init)
        var reports: [FolderReport] = []
        var elapsed: Duration = .zero
        var count = 0
        for set in ["sroie", "wildreceipt"] {
            let receipts = try LabelledFolder.load(Self.shared.appendingPathComponent(set))
            var scorer = EvaluationScorer(folder: set)
            for receipt in receipts {
                let stem = receipt.image.deletingPathExtension().lastPathComponent
                let tsvURL = Self.cache.appendingPathComponent(set).appendingPathComponent(stem + ".tsv")
                guard let tsv = try? String(contentsOf: tsvURL, encoding: .utf8) else {
                    scorer.add(file: receipt.name, truth: receipt.truth, analysis: nil, error: "no cached OCR")
                    continue
                }
                let ocr = OCRResult(tesseractTSV: tsv)
                if show.contains(where: { stem.hasPrefix($0) }) {
                    for row in AmountLine.build(ReceiptDocument(ocr: ocr)) {
                        print("ROW \(row.line.index) [\(row.role)] \(row.amounts.map { $0.value.plainString + ($0.repaired ? "?" : "") }) | \(row.line.text)")
                    }
                }
                let clock = ContinuousClock()
                let start = clock.now
                let analysis = try await analyzer.analyze(AnalysisInput(source: receipt.name, ocr: ocr), options: options)
                elapsed += clock.now - start
                count += 1
                scorer.add(file: receipt.name, truth: receipt.truth, analysis: analysis)
            }
            reports.append(scorer.report)
        }
        for report in reports {
            for miss in report.misses where fields.isEmpty || fields.contains(miss.field.rawValue) {
                print("MISS \(report.folder) \(miss.file) \(miss.field.rawValue): expected \(miss.expected) got \(miss.got)")
            }
        }
        for report in reports { print("ACCURACY " + report.summaryLine) }
        let perReceipt = count == 0 ? 0 : Double(elapsed.components.attoseconds / 1_000_000_000 + elapsed.components.seconds * 1_000_000_000) / Double(count) / 1_000_000
        print("SPEED \(count) receipts, " + String(format: "%.3f", perReceipt) + " ms per receipt (analysis only)")
        #expect(count > 0)
    }
}
