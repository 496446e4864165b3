import Foundation
import Testing
@testable import ReceiptKit

/// The `receipts process` contract, checked on the real binary's real output.
@Suite struct ProcessCommandTests {
    static let recordKeys = ["file", "receiptId", "ocrStatus", "analysis", "expense", "error"]
    static let analysisKeys = ["vendor", "date", "total", "tax", "currency", "category", "lineItems", "confidence", "analyzer"]

    @Test func aBatchWithBadFilesCompletesTheGoodOnesAndNamesEachFailure() async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt(""), "/nonexistent/missing.jpg",
                                          "--store", dir.storePath, "--format", "ndjson"])
        #expect(result.status == 1, "exit 1 when any receipt failed; stderr: \(result.err)")
        let records = try result.ndjson()
        let good = try LabelledFolder.load(URL(fileURLWithPath: ReceiptsCLI.testReceipt("")))
        #expect(records.count == good.count + 7)   // 6 broken files in bad/ and one missing path

        for record in records {
            #expect(record.objectValue?.map(\.0) == Self.recordKeys)
            let file = try #require(record["file"]?.stringValue)
            #expect(UUID(uuidString: record["receiptId"]?.stringValue ?? "") != nil)
            if file.contains("/bad/") || file.contains("missing") {
                #expect(record["ocrStatus"] == .string("failed"))
                #expect(record["analysis"] == .null && record["expense"] == .null)
                let error = try #require(record["error"]?.stringValue)
                #expect(error.hasPrefix(file + ": "), "the error names the file: \(error)")
                #expect(!error.contains("\n"))
            } else {
                #expect(record["ocrStatus"] == .string("completed"), "\(file): \(record["error"] ?? .null)")
                #expect(record["error"] == .null)
                let analysis = try #require(record["analysis"])
                #expect(Array((analysis.objectValue ?? []).map(\.0).prefix(Self.analysisKeys.count)) == Self.analysisKeys)
                #expect(analysis["analyzer"] == .string("heuristic"))
                let expense = try #require(record["expense"])
                #expect(expense["receiptId"] == record["receiptId"])
                #expect(expense["creationMethod"] == .string("ocr"))
                for amount in [analysis["total"], analysis["tax"], expense["amount"]] {
                    if case let .number(text)? = amount {
                        #expect(!text.contains("e") && (text.split(separator: ".").last?.count ?? 0) >= 2,
                                "money is printed with two decimals, exactly, got \(text)")
                    }
                }
                if let date = analysis["date"]?.stringValue { #expect(CalendarDate(iso: date) != nil) }
            }
        }
        let missing = records.first { $0["file"] == .string("/nonexistent/missing.jpg") }
        #expect(missing?["error"] == .string("/nonexistent/missing.jpg: no such file"))
    }

    @Test func allGoodMeansExitZeroAndTheSameBytesAreNotReadTwice() async throws {
        let dir = try TemporaryDirectory()
        let files = [ReceiptsCLI.testReceipt("uk-parking.jpg"), ReceiptsCLI.testReceipt("us-diner.jpg")]
        let first = try await ReceiptsCLI.run(["process"] + files + ["--store", dir.storePath, "--format", "ndjson"])
        #expect(first.status == 0, "\(first.err)")
        let again = try await ReceiptsCLI.run(["process"] + files + ["--store", dir.storePath, "--format", "ndjson"])
        #expect(again.status == 0)
        func ids(_ r: ReceiptsCLI.Result) throws -> Set<String> { Set(try r.ndjson().compactMap { $0["receiptId"]?.stringValue }) }
        #expect(try ids(first) == ids(again), "the second run returns the stored receipts")
        #expect(try ids(first).count == 2)
    }

    @Test func knownValuesArePrintedExactly() async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("us-diner.jpg"), "--store", dir.storePath])
        let truth = try LabelledFolder.readTruth(URL(fileURLWithPath: ReceiptsCLI.testReceipt("us-diner.expected.json")))
        let total = try #require(truth.total)
        #expect(result.out.contains("\"total\":\(total.moneyString),"), "\(result.out)")
    }

    @Test func usageErrorsExitWithTwo() async throws {
        let badWorkers = try await ReceiptsCLI.run(["process", "x.jpg", "--workers", "0"])
        #expect(badWorkers.status == 2)
        #expect(badWorkers.err.contains("--workers"))
        let badFormat = try await ReceiptsCLI.run(["process", "x.jpg", "--format", "xml"])
        #expect(badFormat.status == 2)
        let noLanguage = try await ReceiptsCLI.run(["process", "x.jpg", "--lang", "eng+xyz"])
        #expect(noLanguage.status == 2)
        #expect(noLanguage.err.contains("tesseract-ocr-xyz"))
    }

    @Test func csvAndJsonCarryTheSameReceipts() async throws {
        let dir = try TemporaryDirectory()
        let file = ReceiptsCLI.testReceipt("us-diner.jpg")
        let csv = try await ReceiptsCLI.run(["process", file, "--store", dir.storePath, "--format", "csv"])
        let lines = csv.out.split(separator: "\n")
        #expect(lines.first?.hasPrefix("file,status,vendor,date,total") == true)
        #expect(lines.count == 2)
        let json = try await ReceiptsCLI.run(["process", file, "--store", dir.storePath, "--format", "json"])
        let array = try JSONValue.parse(json.out)
        #expect(array.arrayValue?.count == 1)
        #expect(array.arrayValue?.first?["file"] == .string(file))
    }

    @Test func ocrPrintsTextAndTSV() async throws {
        let text = try await ReceiptsCLI.run(["ocr", ReceiptsCLI.testReceipt("uk-parking.jpg")])
        #expect(text.status == 0)
        #expect(text.out.contains("CASTLEGATE PARKING"))
        let tsv = try await ReceiptsCLI.run(["ocr", "--tsv", ReceiptsCLI.testReceipt("uk-parking.jpg")])
        #expect(tsv.out.hasPrefix(OCRResult.tsvHeader))
        let parsed = OCRResult(tesseractTSV: tsv.out)
        #expect(parsed.words.count > 10)
        let bad = try await ReceiptsCLI.run(["ocr", ReceiptsCLI.testReceipt("bad/text.jpg")])
        #expect(bad.status == 1)
        #expect(bad.err.contains("bad/text.jpg: not an image"))
    }

    @Test func theExecutableSetsOpenMPThreadLimitItself() async throws {
        // Started without OMP_THREAD_LIMIT, it re-executes itself with it; nothing warns about it.
        let result = try await ReceiptsCLI.run(["ocr", ReceiptsCLI.testReceipt("uk-parking.jpg")],
                                         environment: ["OMP_THREAD_LIMIT": ""])
        #expect(result.status == 0)
        #expect(!result.err.contains("OMP_THREAD_LIMIT"))
    }
}
