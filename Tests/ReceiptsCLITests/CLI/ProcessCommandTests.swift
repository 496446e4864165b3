import Foundation
import Testing
@testable import ReceiptKit
import ReceiptEvaluation
@testable import TestHelpers

/// The `receipts process` contract, checked on the real binary's real output.
@Suite struct ProcessCommandTests {
    static let recordKeys = ["file", "receiptId", "ocrStatus", "analysis", "expense", "error", "attempts", "lastError", "createdAt", "updatedAt",
                             "owner", "group", "externalUser", "metadata"]
    static let analysisKeys = ["vendor", "date", "total", "tax", "currency", "category", "lineItems", "confidence", "analyzer"]

    @Test func aBatchWithBadFilesCompletesTheGoodOnesAndNamesEachFailure() async throws {
        let dir = try TemporaryDirectory()
        // TestReceipts' own receipts and its bad/ folder (walked); long/ holds pictures of long
        // receipts, read one receipt to several pictures (LongReceiptCLITests).
        let top = try FileManager.default.contentsOfDirectory(atPath: ReceiptsCLI.testReceipt(""))
            .filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".md") && !$0.hasPrefix(".") && $0 != "long" && $0 != "email" && $0 != "bad" }
            .map { ReceiptsCLI.testReceipt($0) }
        let result = try await ReceiptsCLI.run(["process"] + top.sorted() + [ReceiptsCLI.testReceipt("bad"),
                                          "--store", dir.storePath, "--format", "ndjson"])
        #expect(result.status == 1, "exit 1 when any receipt failed; stderr: \(result.err)")
        let records = try result.ndjson()
        let good = try LabelledFolder.load(URL(fileURLWithPath: ReceiptsCLI.testReceipt("")))
        #expect(records.count == good.count + 9)   // 9 broken files in bad/

        for record in records {
            #expect(record.objectValue?.map(\.0) == Self.recordKeys)
            let file = try #require(record["file"]?.stringValue)
            #expect(UUID(uuidString: record["receiptId"]?.stringValue ?? "") != nil)
            if file.contains("/bad/") {
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
        let badReader = try await ReceiptsCLI.run(["process", "x.jpg"], environment: ["RECEIPTS_READER": "paddle"])
        #expect(badReader.status == 2)
        #expect(badReader.err.contains("RECEIPTS_READER is 'paddle'; it must be tesseract, neural or both"), "\(badReader.err)")
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

    @Test func theTableOnATerminalHasOneLinePerReceiptAndNoEmptyLines() async throws {
        let dir = try TemporaryDirectory()
        // Paths short enough for the file column, so each row can be told by its file.
        let files = ["TestReceipts/uk-parking.jpg", "TestReceipts/us-diner.jpg", "TestReceipts/fr-garage.bmp",
                     "TestReceipts/bad/text.jpg"]
        func checkTable(_ result: ReceiptsCLI.Result, _ run: String) throws {
            #expect(result.status == 1, "\(run): bad/text.jpg fails; \(result.out)")
            // What a terminal narrower than the widest row (170 characters with an error) shows.
            let screen = TerminalScreen(result.out, columns: 150).lines
            let header = try #require(screen.firstIndex { $0.hasPrefix("FILE ") }, "\(run): no table header in \(screen)")
            let last = try #require(screen.lastIndex { line in files.contains { line.hasPrefix($0) } })
            let table = screen[header...last]
            #expect(!table.contains { $0.allSatisfy(\.isWhitespace) },
                    "\(run): an empty line on screen:\n\(table.joined(separator: "\n"))")
            for file in files {
                #expect(table.filter { $0.hasPrefix(file) }.count == 1, "\(run): one row for \(file):\n\(table.joined(separator: "\n"))")
            }
            #expect(screen[(last + 1)...].allSatisfy { !files.contains(where: $0.hasPrefix) })
            // The lines as written: nothing after the last cell that a terminal could wrap onto a line of its own.
            let written = TerminalScreen(result.out, columns: 10_000).lines.filter { line in
                line.hasPrefix("FILE ") || files.contains { line.hasPrefix($0) }
            }
            #expect(written.count == files.count + 1, "\(run): \(written)")
            #expect(written.allSatisfy { !$0.hasSuffix(" ") }, "\(run): trailing blanks in \(written)")
        }
        let root = ReceiptsCLI.repositoryRoot.path
        let explicit = try await ReceiptsCLI.runInTerminal(["process"] + files + ["--store", dir.storePath, "--format", "table"],
                                                           currentDirectory: root)
        try checkTable(explicit, "--format table")
        // A table is the default on a terminal (the stored results are printed this time).
        let automatic = try await ReceiptsCLI.runInTerminal(["process"] + files + ["--store", dir.storePath], currentDirectory: root)
        try checkTable(automatic, "default format")
    }

    @Test func ocrPrintsTextAndTSV() async throws {
        let text = try await ReceiptsCLI.run(["ocr", "--reader", "tesseract", ReceiptsCLI.testReceipt("uk-parking.jpg")])
        #expect(text.status == 0)
        #expect(text.out.contains("CASTLEGATE PARKING"))
        let tsv = try await ReceiptsCLI.run(["ocr", "--reader", "tesseract", "--tsv", ReceiptsCLI.testReceipt("uk-parking.jpg")])
        #expect(tsv.out.hasPrefix(OCRResult.tsvHeader))
        let parsed = OCRResult(tesseractTSV: tsv.out)
        #expect(parsed.words.count > 10)
        let bad = try await ReceiptsCLI.run(["ocr", "--reader", "tesseract", ReceiptsCLI.testReceipt("bad/text.jpg")])
        #expect(bad.status == 1)
        #expect(bad.err.contains("bad/text.jpg: not an image"))
    }

    @Test func theExecutableSetsOpenMPThreadLimitItself() async throws {
        // Started without OMP_THREAD_LIMIT, it re-executes itself with it; nothing warns about it.
        let result = try await ReceiptsCLI.run(["ocr", "--reader", "tesseract", ReceiptsCLI.testReceipt("uk-parking.jpg")],
                                         environment: ["OMP_THREAD_LIMIT": ""])
        #expect(result.status == 0)
        #expect(!result.err.contains("OMP_THREAD_LIMIT"))
    }
}
