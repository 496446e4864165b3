import CTesseract
import Foundation
import Testing
@testable import ReceiptKit
import ReceiptEvaluation
@testable import ReceiptOCR
@testable import TestHelpers

/// Faint print (light dot-matrix, a pale thermal slip) on a scan with dark edges: Tesseract's
/// page-wide threshold turns the whole receipt white. The first reading reads it again with its
/// contrast stretched.
@Suite struct FaintPrintTests {
    /// `uk-parking.jpg` with its print lightened to gray 200–245 and a scanner's black edge at the
    /// top and the bottom, written as a JPEG into `dir`.
    static func faintParkingReceipt(in dir: TemporaryDirectory) throws -> String {
        var source = pixRead(ReceiptsCLI.testReceipt("uk-parking.jpg"))
        defer { pixDestroy(&source) }
        var gray = pixConvertTo8(try #require(source), 0)
        defer { pixDestroy(&gray) }
        // Output = (input − minval) / (maxval − minval) × 255: 0 → 200, 255 → 245.
        var faint = pixGammaTRC(nil, try #require(gray), 1.0, -1133, 312)
        defer { pixDestroy(&faint) }
        let pix = try #require(faint)
        let (w, h) = (pixGetWidth(pix), pixGetHeight(pix))
        for y in [0, h - h / 50] {
            var band = boxCreate(0, y, w, h / 50)
            pixClearInRect(pix, band)                      // 0 is black in an 8-bit gray image
            boxDestroy(&band)
        }
        let path = dir.path("faint-parking.jpg")
        try #require(pixWrite(path, pix, Int32(IFF_JFIF_JPEG)) == 0)
        return path
    }

    @Test func aFaintReceiptThatOnePassReadsAsNothingIsReadInFull() async throws {
        let dir = try TemporaryDirectory()
        let path = try Self.faintParkingReceipt(in: dir)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let engine = OCREngineTests.engine

        // The page-wide threshold alone loses the print (what the fallback is for).
        let single = try await engine.session(imageData: data, file: path, maxPasses: 1).firstReading()
        #expect(single.wordCount < OCRSession.faintPageWords)

        let session = engine.session(imageData: data, file: path)
        let reading = try await session.firstReading()
        #expect(reading.text.contains("CASTLEGATE PARKING"), "\(reading.text)")
        #expect(session.passesRead == 2)
        #expect(session.timesDecoded == 1)
    }

    @Test func aClearReceiptIsReadOnce() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        let session = OCREngineTests.engine.session(imageData: data, file: "uk-parking.jpg")
        _ = try await session.firstReading()
        #expect(session.passesRead == 1)
    }

    @Test func theFaintReceiptGivesTheSameExpenseAsTheClearOne() async throws {
        let dir = try TemporaryDirectory()
        let path = try Self.faintParkingReceipt(in: dir)
        let result = try await ReceiptsCLI.run(["process", path, "--store", dir.storePath, "--format", "ndjson"])
        #expect(result.status == 0, "\(result.err)")
        let record = try #require(try result.ndjson().first)
        let truth = try LabelledFolder.readTruth(URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.expected.json")))
        let analysis = try #require(record["analysis"])
        #expect(analysis["total"]?.doubleValue == truth.total.map { NSDecimalNumber(decimal: $0).doubleValue }, "\(result.out)")
        #expect(analysis["date"]?.stringValue == truth.date?.description, "\(result.out)")
    }
}
