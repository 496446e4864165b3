import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// Separate receipts are never one (issue 56), on the real binary with real OCR (Tesseract) and
/// TestReceipts' own receipts renamed as a new user named theirs: pictures named by date or by a
/// number are joined only when they overlap as parts of one receipt, in the watched folder and by
/// `process` alike; pictures of different receipts sent as one are flagged and split apart; the
/// long receipts of TestReceipts/ read as one each in `make run`'s batch. One at a time: each runs
/// the binary's OCR.
@Suite(.serialized) struct SeparateReceiptsCLITests {
    static func testReceipt(_ name: String) -> String { ReceiptsCLI.testReceipt(name) }

    static func truth(_ name: String) throws -> JSONValue {
        try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: testReceipt("\(name).expected.json"))))
    }

    /// The folder a tester made: receipts named by their day, scans numbered, and a long
    /// receipt's top with another one's bottom.
    static let renamed: [(copy: String, of: String)] = [
        ("receipt-2024-03-14.jpg", "uk-fuel-unleaded"), ("receipt-2024-03-15.jpg", "us-auto-parts"),
        ("scan-1.jpg", "uk-parking"), ("scan-2.jpg", "us-diner"), ("scan-3.jpg", "de-tankstelle"),
        ("shop-1.jpg", "long/groceries-2-1"), ("shop-2.jpg", "long/hardware-2-2"),
    ]

    static func fill(_ folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (copy, name) in renamed {
            try FileManager.default.copyItem(atPath: testReceipt(name + ".jpg"), toPath: folder + "/" + copy)
        }
    }

    static func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func theWatchedFolderAndProcessReadReceiptsNamedByDayOrNumberApart() async throws {
        let dir = try TemporaryDirectory()
        let inbox = dir.path("inbox")
        try Self.fill(inbox)
        // These bytes failed before, read from another folder.
        let elsewhere = dir.path("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.testReceipt("bad/truncated.jpg"), toPath: elsewhere + "/truncated.jpg")
        let before = try await ReceiptsCLI.run(["process", elsewhere + "/truncated.jpg", "--store", dir.storePath, "--format", "ndjson"])
        #expect(before.status == 1)
        try FileManager.default.copyItem(atPath: Self.testReceipt("bad/truncated.jpg"), toPath: inbox + "/truncated.jpg")

        let watch = try await ReceiptsCLI.run(["watch", inbox, "--once", "--stable", "0.2", "--store", dir.storePath])
        #expect(watch.status == 1, "the broken file fails: \(watch.err)")
        // Each receipt filed on its own, with its own sidecar.
        let stems = Self.renamed.map { ($0.copy as NSString).deletingPathExtension }
        #expect(Self.names(inbox + "/processed") == stems.flatMap { [$0 + ".jpg", $0 + ".json"] }.sorted(), "\(watch.err)")
        var watched: [String: Decimal] = [:]
        for (copy, name) in Self.renamed {
            let stem = (copy as NSString).deletingPathExtension
            let sidecar = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: inbox + "/processed/\(stem).json")))
            // The sidecar names the picture where it is now, beside it.
            #expect(sidecar["file"]?.stringValue == inbox + "/processed/" + copy)
            #expect(sidecar["pictures"] == nil, "\(copy) is a receipt of one picture")
            watched[copy] = sidecar["analysis"]?["total"]?.decimalValue
            if !name.hasPrefix("long/") {
                #expect(watched[copy] == (try Self.truth(name))["total"]?.decimalValue, "\(copy) (\(name)): \(sidecar["analysis"] ?? .null)")
            }
        }
        let northway = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: inbox + "/processed/receipt-2024-03-14.json")))
        #expect(northway["analysis"]?["vendor"]?.stringValue?.uppercased() == "NORTHWAY FUELS")
        #expect(northway["analysis"]?["currency"]?.stringValue == "GBP")
        let stored = try await SQLiteReceiptStore(path: dir.storePath).receipts(ReceiptQuery(), in: .everyone)
        #expect(stored.filter { $0.ocrStatus == .completed }.count == Self.renamed.count, "one receipt each, none joined")
        #expect(stored.allSatisfy { $0.analysis?.pictureRuns == nil })
        // The log's totals in the currency's minor units; the failure names this folder's file only.
        #expect(watch.err.contains("receipt.total=7.50"), "\(watch.err)")
        let error = try String(contentsOfFile: inbox + "/failed/truncated.error.txt", encoding: .utf8)
        #expect(error.hasPrefix(inbox + "/truncated.jpg: ") && !error.contains(elsewhere), "\(error)")
        #expect(!watch.err.contains(elsewhere), "\(watch.err)")

        // `process` on the same files agrees.
        let folder = dir.path("again")
        try Self.fill(folder)
        let process = try await ReceiptsCLI.run(["process", folder, "--store", dir.path("other.sqlite"), "--format", "ndjson"])
        #expect(process.status == 0, "\(process.err)")
        let records = try process.ndjson()
        #expect(records.count == Self.renamed.count)
        for record in records {
            let copy = ((record["file"]?.stringValue ?? "") as NSString).lastPathComponent
            #expect(record["analysis"]?["total"]?.decimalValue == watched[copy], "\(copy)")
            #expect(record["analysis"]?["pictures"] == nil, "\(copy)")
        }
    }

    @Test func picturesOfDifferentReceiptsSentAsOneAreFlaggedAndSplitApart() async throws {
        let dir = try TemporaryDirectory()
        let (top, bottom) = (Self.testReceipt("long/groceries-2-1.jpg"), Self.testReceipt("long/hardware-2-2.jpg"))
        let joined = try await ReceiptsCLI.run(["process", "--one-receipt", top, bottom, "--store", dir.storePath, "--format", "ndjson"])
        #expect(joined.status == 0, "\(joined.err)")
        let record = try #require(try joined.ndjson().first)
        let analysis = try #require(record["analysis"])
        #expect(analysis["confidence"]?["needsReview"]?.boolValue == true, "\(analysis)")
        #expect(analysis["review"]?.arrayValue?.compactMap(\.stringValue).contains("pictures") == true, "\(analysis["review"] ?? .null)")
        #expect(record["expense"]?["needsReview"]?.boolValue == true)
        let id = try #require(record["receiptId"]?.stringValue)

        let split = try await ReceiptsCLI.run(["split", String(id.prefix(8)), "--store", dir.storePath, "--format", "ndjson"])
        #expect(split.status == 0, "\(split.err)")
        let parts = try split.ndjson()
        #expect(parts.map { $0["file"]?.stringValue } == [top, bottom])
        #expect(parts.allSatisfy { $0["ocrStatus"]?.stringValue == "completed" && $0["analysis"]?["pictures"] == nil })
        #expect(parts.last?["analysis"]?["total"]?.decimalValue == (try Self.truth("long/hardware"))["total"]?.decimalValue)
        #expect(split.err.contains("split receipt \(id)"), "\(split.err)")
        // The receipt split is gone; splitting a receipt of one picture says why.
        let show = try await ReceiptsCLI.run(["show", id, "--store", dir.storePath])
        #expect(show.status != 0)
        let again = try await ReceiptsCLI.run(["split", try #require(parts[0]["receiptId"]?.stringValue), "--store", dir.storePath])
        #expect(again.status == 1 && again.err.contains("one picture"), "\(again.err)")
    }

    /// `make run` (`receipts process TestReceipts/`): each long receipt's pictures read as one.
    @Test func theLongReceiptsOfTestReceiptsAreReadAsOneEach() async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["process", Self.testReceipt("long"), "--store", dir.storePath, "--format", "ndjson"])
        #expect(result.status == 0, "\(result.err)")
        let records = try result.ndjson()
        let files = records.compactMap { ($0["file"]?.stringValue as NSString?)?.lastPathComponent }.sorted()
        #expect(files == ["garden-3-1.jpg", "garden.jpg", "groceries-2-1.jpg", "groceries.jpg", "hardware-2-1.jpg", "hardware-3-1.jpg", "hardware.jpg"])
        for record in records {
            let file = try #require(record["file"]?.stringValue)
            let name = (file as NSString).lastPathComponent
            let receipt = String(name.prefix { $0 != "-" && $0 != "." })
            let analysis = try #require(record["analysis"])
            #expect(analysis["total"]?.decimalValue == (try Self.truth("long/" + receipt))["total"]?.decimalValue, "\(name)")
            #expect(analysis["vendor"]?.stringValue != nil, "\(name)")
            if name.contains("-") {
                let count = Int(name.split(separator: "-")[1])!
                #expect(analysis["pictures"]?.arrayValue?.count == count, "\(name)")
                #expect(analysis["review"]?.arrayValue?.contains(.string("pictures")) == false, "\(name): \(analysis["review"] ?? .null)")
            }
        }
        #expect(result.err.contains("7 receipts"), "\(result.err)")
    }
}
