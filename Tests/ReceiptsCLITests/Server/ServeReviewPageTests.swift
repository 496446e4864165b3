import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// Issue 30's accuracy measured on a person's confirmed receipts: `receipts eval --corrections` on
/// the store of the real `receipts serve` on 127.0.0.1 (Tesseract alone, the default reader being
/// slow in debug builds), real OCR, a real SQLite store. The routes issue 30 adds (receipts needing
/// review, the vendor corrected, the words each field was read from) are tested in process:
/// ReceiptServerTests' ExpenseRoutesTests. The page itself is driven in Chromium by scripts/browser-test.
@Suite(.serialized) struct ServeReviewPageTests {
    typealias Server = ServeCommandTests.Server
    static let json = ["Content-Type": "application/json"]

    /// A server with a receipt flagged for review (uk-parking-ticket.gif, £3.40) and one that is
    /// not (uk-fuel-diesel.png): the server and both records.
    private func serverWithTwo(_ dir: TemporaryDirectory) async throws -> (Server, flagged: JSONValue, clear: JSONValue) {
        let server = try await Server(store: dir.storePath, arguments: ["--reader", "tesseract"])
        let (s1, flagged) = try await server.upload("uk-parking-ticket.gif", wait: 60)
        let (s2, clear) = try await server.upload("uk-fuel-diesel.png", wait: 60)
        #expect(s1 == 200 && s2 == 200)
        #expect(flagged["expense"]?["needsReview"] == .bool(true) && clear["expense"]?["needsReview"] == .bool(false),
                "the test needs one flagged receipt and one not: \(flagged["expense"] ?? .null) \(clear["expense"] ?? .null)")
        return (server, flagged, clear)
    }

    @Test func evalCorrectionsSaysPerFieldHowOftenConfirmedReceiptsKeptTheDraft() async throws {
        let dir = try TemporaryDirectory()
        let (server, flagged, clear) = try await serverWithTwo(dir)
        let none = try await ReceiptsCLI.run(["eval", "--corrections", "--store", dir.storePath])
        #expect(none.status == 0 && none.out.hasPrefix("No confirmed receipts yet"), "\(none)")
        for (record, body) in [(flagged, #"{"amount": "3.60", "status": "confirmed"}"#), (clear, #"{"status": "confirmed"}"#)] {
            let id = try #require(record["expense"]?["id"]?.stringValue)
            let (status, answer) = try await server.json("PATCH", "/v1/expenses/\(id)", body: Data(body.utf8), headers: Self.json)
            #expect(status == 200, "\(answer)")
        }
        let report = try await ReceiptsCLI.run(["eval", "--corrections", "--store", dir.storePath, "--format", "json"])
        #expect(report.status == 0, "\(report.err)")
        let json = try JSONValue.parse(report.out)
        #expect(json["confirmed"] == .number("2"))
        #expect(json["kept"]?["total"]?["count"] == .number("1") && json["kept"]?["total"]?["share"] == .number("0.5"), "\(json)")
        #expect(json["kept"]?["vendor"]?["count"] == .number("2"), "\(json)")
        let text = try await ReceiptsCLI.run(["eval", "--corrections", "--store", dir.storePath])
        #expect(text.out.contains("2 confirmed receipts") && text.out.contains("total             1/2       50.0%"), "\(text.out)")
        let usage = try await ReceiptsCLI.run(["eval"])
        #expect(usage.status == 64 || usage.status == 2, "\(usage)")
        #expect(usage.err.contains("give folders of labelled receipts, or --corrections"), "\(usage.err)")
        #expect(try await server.stop())
    }
}

/// How the words of each field are found in a reading (`FieldSources`).
struct FieldSourcesTests {
    private func word(_ text: String, x: Int, y: Int) -> OCRWord {
        OCRWord(text: text, confidence: 90, box: BoundingBox(x: x, y: y, width: 10 * text.count, height: 20))
    }

    @Test(arguments: [("£90.70", "90.70"), ("90,70", "90.70"), ("1,090.70", "1090.70"), ("90.70GBP", "90.70"), ("EUR", nil)])
    func anAmountIsReadFromAWordsDigits(_ text: String, _ expected: String?) {
        #expect(FieldSources.amount(in: text) == expected.flatMap { Decimal(string: $0) })
    }

    @Test func theTotalIsTheLabelledAmountAndTheDateMayBeSpelledOut() {
        let lines = [
            OCRLine(words: [word("KESTREL", x: 0, y: 0), word("FUEL", x: 90, y: 0)]),
            OCRLine(words: [word("2", x: 0, y: 30), word("Aug", x: 20, y: 30), word("2023", x: 60, y: 30)]),
            OCRLine(words: [word("SUBTOTAL", x: 0, y: 60), word("90.70", x: 120, y: 60)]),
            OCRLine(words: [word("TOTAL", x: 0, y: 90), word("£90.70", x: 120, y: 90)]),
            OCRLine(words: [word("CHANGE", x: 0, y: 120), word("90.70", x: 120, y: 120)]),
        ]
        let ocr = OCRResult(text: "", lines: lines, meanConfidence: 90, imageWidth: 400, imageHeight: 200, sourceWidth: 800, sourceHeight: 400)
        let analysis = ReceiptAnalysis(vendor: "Kestrel Fuel", date: CalendarDate(year: 2023, month: 8, day: 2), total: Decimal(string: "90.70"),
                                       currency: "GBP", analyzer: "test")
        let sources = FieldSources.locate(analysis, in: ocr)
        let words = Dictionary(uniqueKeysWithValues: sources.fields.map { ($0.field, $0.words.map(\.text)) })
        #expect(words["total"] == ["£90.70"], "the line that says TOTAL, not the subtotal or the change")
        #expect(words["date"] == ["2", "Aug", "2023"])
        #expect(words["vendor"] == ["KESTREL", "FUEL"])
        #expect(words["currency"] == ["£90.70"], "the sign on the total's line")
        #expect(sources.json["imageWidth"] == .number("400"))
    }
}
