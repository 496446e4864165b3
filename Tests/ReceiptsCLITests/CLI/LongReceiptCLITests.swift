import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// Long receipts photographed in several pictures, from the command line, on the real binary with
/// real OCR (Tesseract, for time, but for the one test that checks every item): `process --one-receipt`, `watch` joining `NAME-1.jpg`,
/// `NAME-2.jpg`…, and `eval --cuts`. One at a time: each runs the real binary's OCR, and four at
/// once beside the rest of the suite would starve the tests that wait on a clock.
@Suite(.serialized) struct LongReceiptCLITests {
    static func long(_ name: String) -> String { ReceiptsCLI.testReceipt("long/\(name)") }

    static func truth(_ name: String) throws -> JSONValue {
        try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: long("\(name).expected.json"))))
    }

    @Test func threePicturesAreOneReceiptWithTheWholeReceiptsTotalDateTaxAndItems() async throws {
        let dir = try TemporaryDirectory()
        let pictures = (1...3).map { Self.long("garden-3-\($0).jpg") }
        let truth = try Self.truth("garden")
        // Both readers, as a user reads (Tesseract alone misreads an amount of the middle picture).
        let first = try await ReceiptsCLI.run(["process", "--one-receipt"] + pictures + ["--store", dir.storePath, "--format", "ndjson"],
                                              environment: ["RECEIPTS_READER": ""])
        #expect(first.status == 0, "\(first.err)")
        let records = try first.ndjson()
        #expect(records.count == 1, "one receipt of three pictures")
        let analysis = try #require(records.first?["analysis"])
        #expect(records.first?["file"]?.stringValue == pictures[0])
        #expect(analysis["pictures"]?.arrayValue?.compactMap { $0["file"]?.stringValue } == pictures)
        for field in ["total", "tax"] {
            #expect(analysis[field]?.decimalValue == truth[field]?.decimalValue, "\(field): \(analysis[field] ?? .null)")
        }
        #expect(analysis["date"]?.stringValue == truth["date"]?.stringValue)
        let amounts = analysis["lineItems"]?.arrayValue?.compactMap { $0["amount"]?.decimalValue } ?? []
        #expect(amounts == truth["lineItems"]?.arrayValue?.compactMap { $0["amount"]?.decimalValue }, "each item once")
        // The same pictures again: that receipt, not read again.
        let again = try await ReceiptsCLI.run(["process", "--one-receipt"] + pictures + ["--store", dir.storePath, "--format", "ndjson",
                                                                                          "--reader", "tesseract"])
        #expect(try again.ndjson().first?["receiptId"] == records.first?["receiptId"])
    }

    @Test func aFoldersPicturesAreTakenInNameOrder() async throws {
        let dir = try TemporaryDirectory()
        let folder = dir.path("photos")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // IMG_9 is the top and IMG_10 the bottom: in name order, numbers as numbers.
        try FileManager.default.copyItem(atPath: Self.long("hardware-2-1.jpg"), toPath: folder + "/IMG_9.jpg")
        try FileManager.default.copyItem(atPath: Self.long("hardware-2-2.jpg"), toPath: folder + "/IMG_10.jpg")
        let result = try await ReceiptsCLI.run(["process", "--one-receipt", folder, "--store", dir.storePath, "--format", "ndjson",
                                                "--reader", "tesseract"])
        #expect(result.status == 0, "\(result.err)")
        let analysis = try #require(try result.ndjson().first?["analysis"])
        #expect(analysis["pictures"]?.arrayValue?.compactMap { $0["file"]?.stringValue } == [folder + "/IMG_9.jpg", folder + "/IMG_10.jpg"])
        #expect(analysis["total"]?.decimalValue == (try Self.truth("hardware")["total"]?.decimalValue))
        // A picture that cannot be read fails the receipt, naming it.
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: folder + "/IMG_11.jpg"))
        let broken = try await ReceiptsCLI.run(["process", "--one-receipt", folder, "--store", dir.storePath, "--format", "ndjson",
                                                "--reader", "tesseract"])
        #expect(broken.status == 1)
        #expect(try broken.ndjson().first?["error"]?.stringValue?.contains("IMG_11.jpg") == true)
    }

    @Test func theWatchedFolderJoinsNumberedPicturesIntoOneReceipt() async throws {
        let dir = try TemporaryDirectory()
        let inbox = dir.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.long("hardware-2-1.jpg"), toPath: inbox + "/ridgeway-1.jpg")
        try FileManager.default.copyItem(atPath: Self.long("hardware-2-2.jpg"), toPath: inbox + "/ridgeway-2.jpg")
        let result = try await ReceiptsCLI.run(["watch", inbox, "--once", "--stable", "0.2", "--store", dir.storePath, "--reader", "tesseract"])
        #expect(result.status == 0, "\(result.err)")
        let processed = try FileManager.default.contentsOfDirectory(atPath: inbox + "/processed").filter { !$0.hasPrefix(".") }.sorted()
        #expect(processed == ["ridgeway-1.jpg", "ridgeway-2.jpg", "ridgeway.json"])
        let sidecar = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: inbox + "/processed/ridgeway.json")))
        #expect(sidecar["analysis"]?["total"]?.decimalValue == (try Self.truth("hardware")["total"]?.decimalValue))
        #expect(sidecar["pictures"]?.arrayValue?.count == 2)
    }

    @Test func evalCutsEachPhotoAndPrintsBothFiguresSideBySide() async throws {
        let dir = try TemporaryDirectory()
        let folder = dir.path("labelled")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for file in ["groceries.jpg", "groceries.expected.json"] {
            try FileManager.default.copyItem(atPath: Self.long(file), toPath: folder + "/" + file)
        }
        let result = try await ReceiptsCLI.run(["eval", folder, "--cuts", "0-62,38-100", "--reader", "tesseract", "--workers", "1"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("whole photo") && result.out.contains("2 pictures (0–62 %, 38–100 %)"), "\(result.out)")
        let total = try #require(result.out.split(separator: "\n").first { $0.hasPrefix("  total") })
        #expect(total.contains("100.0% (1/1)") && total.hasSuffix("+0.0"), "the cut photo reads the whole photo's total: \(total)")
        let bad = try await ReceiptsCLI.run(["eval", folder, "--cuts", "0-62"])
        #expect(bad.status == 64 || bad.status == 2, "one band is a usage error: \(bad.err)")
    }
}
