import Foundation
import Testing
@testable import ReceiptKit
import ReceiptEvaluation
@testable import ReceiptOCR
@testable import TestHelpers

/// PDF receipts through poppler: an emailed receipt's text layer read exactly and without OCR, a
/// scan saved as PDF rendered and read like its picture, broken PDFs failing with one line.
@Suite struct PDFTests {
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
    }

    static func truth(_ name: String) throws -> GroundTruth {
        try LabelledFolder.readTruth(URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
    }

    @Test func theTextLayerIsTheFirstReadingAndNoOCRRuns() async throws {
        let session = OCREngineTests.engine.session(imageData: try Self.data("email-fuel-card.pdf"), file: "email-fuel-card.pdf")
        let reading = try await session.firstReading()
        #expect(session.readFromTextLayer)
        #expect(session.passesRead == 0 && session.timesDecoded == 0, "no OCR pass, no picture decoded")
        #expect(try await session.read(OCRPass(scale: 2)) == nil, "a text layer has nothing to read again")
        #expect(reading.text.contains("VAT @ 20% 10.50"), "columns are separate words: \(reading.text)")
        // Words carry boxes, top to bottom, inside the page (at 300 dpi: 80 mm is 945 px).
        let words = reading.lines.flatMap(\.words)
        #expect(words.allSatisfy { $0.confidence == 100 && $0.box.width > 0 && $0.box.maxX <= reading.imageWidth })
        #expect(reading.imageWidth == 945)
        let tops = reading.lines.map(\.box.y)
        #expect(tops == tops.sorted())
    }

    @Test func theEmailedReceiptGivesEveryFieldExactly() async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("email-fuel-card.pdf"),
                                                "--store", dir.storePath, "--format", "ndjson"])
        #expect(result.status == 0, "\(result.err)")
        let analysis = try #require(try result.ndjson().first?["analysis"])
        let truth = try Self.truth("email-fuel-card.expected.json")
        #expect(analysis["vendor"]?.stringValue.map(NameMatching.normalized) == truth.vendor.map(NameMatching.normalized))
        #expect(analysis["date"]?.stringValue == truth.date?.description)
        #expect(analysis["total"]?.doubleValue == 63.00 && truth.total == Decimal(string: "63.00"))
        #expect(analysis["tax"]?.doubleValue == 10.50 && truth.tax == Decimal(string: "10.50"))
        #expect(analysis["currency"]?.stringValue == "GBP")
        #expect(analysis["category"]?.stringValue == "Fuel")
    }

    @Test func theScannedPDFGivesTheSameFieldsAsItsPicture() async throws {
        let dir = try TemporaryDirectory()
        let result = try await ReceiptsCLI.run(["process", ReceiptsCLI.testReceipt("scan-parking.pdf"),
                                                ReceiptsCLI.testReceipt("uk-parking.jpg"),
                                                "--store", dir.storePath, "--format", "ndjson"])
        #expect(result.status == 0, "\(result.err)")
        let records = try result.ndjson()
        let pdf = try #require(records.first { $0["file"]?.stringValue?.hasSuffix(".pdf") == true })
        let jpeg = try #require(records.first { $0["file"]?.stringValue?.hasSuffix(".jpg") == true })
        for field in ["vendor", "date", "total", "tax", "currency", "category"] {
            #expect(pdf["analysis"]?[field] == jpeg["analysis"]?[field], "\(field)")
        }
        #expect(pdf["analysis"]?["total"]?.doubleValue == 7.50)
    }

    @Test func aPDFWithTextButNoAmountsOrDatesIsNotAReceipt() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("letter.pdf", Data(Self.minimalPDF(text: "Dear customer, thank you for your letter").utf8))
        await #expect {
            _ = try await OCREngineTests.engine.recognize(imageAt: URL(fileURLWithPath: path), file: path)
        } throws: { error in
            "\(error)" == "\(path): not a receipt: the PDF's text has no amounts or dates"
        }
    }

    @Test func aBrokenPDFFailsWithOneLine() async throws {
        let dir = try TemporaryDirectory()
        let cut = String(Self.minimalPDF(text: "TOTAL 12.00").prefix(120))
        for (name, body) in [("garbage.pdf", "%PDF-1.7\nthis is not a PDF at all\n"), ("cut.pdf", cut)] {
            let path = try dir.write(name, Data(body.utf8))
            await #expect {
                _ = try await OCREngineTests.engine.recognize(imageAt: URL(fileURLWithPath: path), file: path)
            } throws: { error in
                let line = "\(error)"
                return line.hasPrefix("\(path): corrupt") && line.contains("PDF") && !line.contains("\n")
            }
        }
    }

    @Test func thePageLimitIsConfigurable() async throws {
        let dir = try TemporaryDirectory()
        let fifty = ReceiptsCLI.testReceipt("bad/fifty-pages.pdf")
        let refused = try await ReceiptsCLI.run(["process", fifty, "--store", dir.storePath, "--format", "ndjson"])
        #expect(refused.status == 1)
        #expect(try refused.ndjson().first?["error"]?.stringValue == "\(fifty): PDF has 50 pages, above the limit of 10 for one receipt (--max-pdf-pages)")
        let allowed = try await ReceiptsCLI.run(["process", fifty, "--max-pdf-pages", "50", "--store", dir.storePath, "--format", "ndjson", "--force"])
        // Read, but a statement's pages hold no receipt: a draft with no total, not an error about pages.
        #expect(try allowed.ndjson().first?["error"]?.stringValue?.contains("pages") != true, "\(allowed.out)")
    }

    /// A one-page PDF whose text layer says `text` (Helvetica), with a correct cross-reference table.
    static func minimalPDF(text: String) -> String {
        let content = "BT /F1 12 Tf 40 100 Td (\(text)) Tj ET"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        var pdf = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (i, object) in objects.enumerated() {
            offsets.append(pdf.utf8.count)
            pdf += "\(i + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = pdf.utf8.count
        pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { pdf += String(format: "%010d 00000 n \n", offset) }
        pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return pdf
    }
}
