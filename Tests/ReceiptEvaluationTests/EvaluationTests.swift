import Foundation
import Testing
import ReceiptModel
import ReceiptAnalyzers
import ReceiptEvaluation

@Suite struct EvaluationTests {
    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func loadsBothGroundTruthLayouts() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data([0xFF, 0xD8]).write(to: dir.appendingPathComponent("a.jpg"))
        try #"{"vendor": "Shop A", "date": "2024-03-01", "total": "12.30", "tax": null, "currency": "GBP"}"#
            .write(to: dir.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        try Data([0x89]).write(to: dir.appendingPathComponent("b.PNG"))
        try #"{"vendor": "Shop B", "total": 4.5, "category": "Fuel"}"#
            .write(to: dir.appendingPathComponent("b.expected.json"), atomically: true, encoding: .utf8)
        try Data([0x00]).write(to: dir.appendingPathComponent("unlabelled.jpg"))
        try "notes".write(to: dir.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)

        let receipts = try LabelledFolder.load(dir)
        #expect(receipts.map(\.name) == ["a.jpg", "b.PNG"])
        #expect(receipts[0].truth.total == Decimal(string: "12.30"))
        #expect(receipts[0].truth.tax == nil)
        #expect(receipts[1].truth.total == Decimal(string: "4.5"))
        #expect(receipts[1].truth.category == "Fuel")
    }

    /// A long receipt's pictures, `NAME-1.jpg`, `NAME-2.jpg`…, beside one `NAME.expected.json`: one
    /// labelled receipt of several pictures, in number order (the watched folder's naming).
    @Test func picturesOfOneReceiptAreOneLabelledReceipt() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["shop-10.jpg", "shop-2.jpg", "shop-1.jpg", "whole.jpg", "stray-1.jpg"] {
            try Data([0xFF, 0xD8]).write(to: dir.appendingPathComponent(name))
        }
        for name in ["shop.expected.json", "whole.expected.json"] {
            try #"{"vendor": "Shop", "total": "9.99"}"#.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let receipts = try LabelledFolder.load(dir)
        #expect(receipts.count == 2, "stray-1.jpg has no ground truth: left out")
        let shop = try #require(receipts.first { $0.pictures.count > 1 })
        #expect(shop.pictures.map(\.lastPathComponent) == ["shop-1.jpg", "shop-2.jpg", "shop-10.jpg"])
        #expect(shop.name == "shop-1..3.jpg" && shop.truth.total == Decimal(string: "9.99"))
        #expect(receipts.first { $0.pictures.count == 1 }?.name == "whole.jpg")
    }

    @Test func badGroundTruthNamesTheFile() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data([0xFF]).write(to: dir.appendingPathComponent("c.jpg"))
        try #"{"date": "03/01/2024"}"#.write(to: dir.appendingPathComponent("c.json"), atomically: true, encoding: .utf8)
        let error = #expect(throws: ReceiptError.self) { try LabelledFolder.load(dir) }
        #expect(error?.file?.hasSuffix("c.json") == true)
        #expect(error?.code == .labels)
        #expect(error?.description.contains("YYYY-MM-DD") == true)
        #expect(throws: ReceiptError.self) { try LabelledFolder.load(dir.appendingPathComponent("missing")) }
    }

    @Test func scoresAsTheSharedReadmeSays() throws {
        let truth = try GroundTruth(json: JSONValue.parse(#"""
            {"vendor": "CENTRALPARKSTEAKHOUSE Central Park", "date": "2024-03-01", "total": "23.50", "tax": null,
             "currency": null, "raw": {"Store_name_value": ["CENTRALPARKSTEAKHOUSE", "Central Park"]}}
            """#), file: "t.json")
        var scorer = EvaluationScorer(folder: "wild")
        let right = ReceiptAnalysis(vendor: "Central Park Steak-House", date: CalendarDate(iso: "2024-03-01"),
                                    total: Decimal(string: "23.5"), tax: Decimal(string: "1.00"), currency: "USD",
                                    analyzer: "heuristic")
        scorer.add(file: "a.jpg", truth: truth, analysis: right)
        var wrong = ReceiptAnalysis(vendor: "Steak", date: CalendarDate(iso: "2024-01-03"), total: Decimal(string: "23.05"),
                                    analyzer: "heuristic")
        wrong.confidence.needsReview = false
        scorer.add(file: "b.jpg", truth: truth, analysis: wrong)
        scorer.add(file: "c.jpg", truth: truth, analysis: nil, error: "c.jpg: not an image")
        let report = scorer.report
        #expect(report.receipts == 3 && report.failed == 1)
        #expect(report.score(.vendor) == FieldScore(scored: 3, correct: 1))
        #expect(report.score(.total) == FieldScore(scored: 3, correct: 1))
        #expect(report.score(.tax).scored == 0, "null truth is not scored")
        #expect(report.score(.currency).scored == 0)
        #expect(report.misses.contains(EvaluationMiss(file: "b.jpg", field: .date, expected: "2024-03-01", got: "2024-01-03")))
        #expect(report.misses.contains(EvaluationMiss(file: "c.jpg", field: .total, expected: "23.50",
                                                      got: "failed: c.jpg: not an image")))

        let json = EvaluationReport(folders: [report]).json()
        let text = json.serialized()
        let parsed = try JSONValue.parse(text)
        let fields = try #require(parsed["folders"]?.arrayValue?.first?["fields"])
        #expect(fields["total"]?["accuracy"] == .number("0.3333"))
        #expect(fields["tax"] == nil)
        #expect(parsed["folders"]?.arrayValue?.first?["misses"]?.arrayValue?.count == report.misses.count)
        #expect(report.summaryLine.contains("total 33.3% (1/3)"))
        // needsReview: only b was left unflagged, and its total and date are wrong.
        #expect(report.review == ReviewScore(receipts: 3, unflagged: 1, right: 0, rightWithTax: 0, vendorKnown: 1, vendorRight: 0))
        #expect(parsed["folders"]?.arrayValue?.first?["review"]?["unflagged"]?.doubleValue == 1)
    }

    /// An unflagged receipt with the right total and date but the wrong tax is right on those two,
    /// not on all three: what a bookkeeper reclaiming VAT would notice.
    @Test func unflaggedReceiptsAreJudgedOnTheirTaxAndVendorToo() throws {
        let truth = GroundTruth(vendor: "Kestrel Fuel", date: CalendarDate(iso: "2024-05-23"), total: Decimal(string: "14.77"),
                                tax: Decimal(string: "2.36"))
        var scorer = EvaluationScorer(folder: "driver")
        func analysis(tax: String, vendor: String) -> ReceiptAnalysis {
            var a = ReceiptAnalysis(vendor: vendor, date: CalendarDate(iso: "2024-05-23"), total: Decimal(string: "14.77"),
                                    tax: Decimal(string: tax), analyzer: "heuristic")
            a.confidence.needsReview = false
            return a
        }
        scorer.add(file: "right.jpg", truth: truth, analysis: analysis(tax: "2.36", vendor: "KESTREL FUEL"))
        scorer.add(file: "vat-of-half.jpg", truth: truth, analysis: analysis(tax: "7.36", vendor: "Thank you"))
        #expect(scorer.report.review == ReviewScore(receipts: 2, unflagged: 2, right: 2, rightWithTax: 1, vendorKnown: 2, vendorRight: 1))
    }

    @Test func vendorComparisonIgnoresCaseSpacesAndPunctuation() {
        #expect(EvaluationScorer.normalizedName("MR. D.I.Y. (M) SDN BHD") == EvaluationScorer.normalizedName("mr diy m sdn bhd"))
        #expect(EvaluationScorer.normalizedName("McDonald'sSchiphol") == "mcdonaldsschiphol")
    }

    @Test func categoryScoredOnlyWhenLabelled() {
        var scorer = EvaluationScorer(folder: "t")
        scorer.add(file: "a.jpg", truth: GroundTruth(category: "Fuel"), analysis: ReceiptAnalysis(category: "fuel", analyzer: "h"))
        scorer.add(file: "b.jpg", truth: GroundTruth(total: 1), analysis: ReceiptAnalysis(total: 1, category: "Other", analyzer: "h"))
        #expect(scorer.report.score(.category) == FieldScore(scored: 1, correct: 1))
    }

    /// Line items are scored against the labelled items' amounts as multisets (each labelled item
    /// matched once): precision, recall, F1, receipts with exactly the labelled amounts, and how
    /// alike matched items' descriptions are; WildReceipt's prices are read as transcribed.
    @Test func itemsAreScoredAsMultisetsOfAmounts() throws {
        let truth = try GroundTruth(json: JSONValue.parse(#"""
            {"vendor": "DINER", "total": "20.00", "raw": {"Prod_item_value": ["Coffee", "Coffee", "BLTSalad"],
             "Prod_price_value": ["$2.50", "2,50", "15.00T"]}}
            """#), file: "t.json")
        #expect(truth.items?.map(\.amount) == [Decimal(string: "2.50")!, Decimal(string: "2.50")!, 15])
        #expect(truth.items?.map(\.description) == ["Coffee", "Coffee", "BLTSalad"])
        var scorer = EvaluationScorer(folder: "wild")
        // Exactly the labelled amounts: right, whatever the order.
        scorer.add(file: "a.jpg", truth: truth, analysis: ReceiptAnalysis(lineItems: [
            LineItem(description: "BLT Salad", amount: 15), LineItem(description: "COFFEE", amount: Decimal(string: "2.50")),
            LineItem(description: "Cofee", amount: Decimal(string: "2.50"))], analyzer: "h"))
        // One coffee missed and a total read as an item.
        scorer.add(file: "b.jpg", truth: truth, analysis: ReceiptAnalysis(lineItems: [
            LineItem(description: "Coffee", amount: Decimal(string: "2.50")), LineItem(description: "BLT Salad", amount: 15),
            LineItem(description: "TOTAL", amount: 20)], analyzer: "h"))
        // Nothing labelled: not scored.
        scorer.add(file: "c.jpg", truth: GroundTruth(total: 1), analysis: ReceiptAnalysis(lineItems: [LineItem(description: "X", amount: 1)], analyzer: "h"))
        let report = scorer.report
        #expect(report.items.receipts == 2 && report.items.exact == 1)
        #expect(report.items.read == 6 && report.items.labelled == 6 && report.items.matched == 5)
        #expect(report.items.f1 == 10.0 / 12.0)
        #expect(report.score(.items) == FieldScore(scored: 2, correct: 1))
        #expect(report.misses.contains(EvaluationMiss(file: "b.jpg", field: .items, expected: "2.5 2.5 15", got: "2.5 15 20")))
        // `Cofee` against `Coffee`: one letter of six.
        #expect(abs(ItemScore.similarity("Cofee", "Coffee") - 5.0 / 6.0) < 1e-9)
        #expect(report.summaryLine.contains("items F1 0.83 (P 0.83, R 0.83), exact 1/2"))
        let json = try JSONValue.parse(EvaluationReport(folders: [report]).json().serialized())
        #expect(json["folders"]?.arrayValue?.first?["items"]?["exact"]?.doubleValue == 1)
    }

    /// TestReceipts label their items in `lineItems`; an empty list is known (the receipt prints none).
    @Test func testReceiptsLabelTheirItems() throws {
        let truth = try GroundTruth(json: JSONValue.parse(#"{"total": "7.50", "lineItems": []}"#), file: "p.expected.json")
        #expect(truth.items == [])
        #expect(try GroundTruth(json: JSONValue.parse(#"{"total": "7.50"}"#), file: "q.json").items == nil)
    }
}

