import Foundation
import Testing
@testable import ReceiptKit

@Suite struct Scratch {
    @Test func timing() throws {
        var docs: [ReceiptDocument] = []
        var ocrs: [OCRResult] = []
        for set in ["sroie", "wildreceipt"] {
            let dir = "/work/ocr-cache/\(set)"
            for f in try FileManager.default.contentsOfDirectory(atPath: dir) where f.hasSuffix(".tsv") {
                let o = OCRResult(tesseractTSV: try String(contentsOfFile: dir + "/" + f, encoding: .utf8))
                ocrs.append(o)
            }
        }
        let clock = ContinuousClock()
        func t(_ name: String, _ body: () -> Void) {
            let d = clock.measure(body)
            print("T", name, d / ocrs.count)
        }
        t("document") { docs = ocrs.map { ReceiptDocument(ocr: $0) } }
        var rows: [[AmountLine]] = []
        t("rows") { rows = docs.map { AmountLine.build($0) } }
        t("total") { for r in rows { _ = TotalFinder.find(r) } }
        t("date") { for d in docs { _ = DateFinder.find(d, orderHint: nil, defaultOrder: .dayFirst) } }
        t("vendor") { for d in docs { _ = VendorFinder.find(d, rows: AmountLine.build(d)) } }
        t("currency") { for (d, r) in zip(docs, rows) { _ = CurrencyDetector.detect(d, amounts: r) } }
        t("tax") { for r in rows { _ = TaxFinder.find(r, total: nil) } }
        t("items") { for r in rows { _ = LineItemParser.parse(r) } }
        t("category") { for d in docs { _ = CategoryClassifier(taxonomy: .default).classify(d, vendor: nil) } }
    }
}
