import CTesseract
import Foundation
import Testing
@testable import ReceiptKit
@testable import ReceiptOCR
@testable import TestHelpers

/// A shop's name printed white on a dark band: the first reading reads the band again, inverted.
@Suite struct DarkBandTests {
    /// `uk-parking.jpg` with the band around its name ("CASTLEGATE PARKING", the first row)
    /// inverted and dimmed, as a header band printed white on black looks in a dim photo: gray 140
    /// print on gray 40 (Tesseract reads a crisp inverted band by itself, not this one). Written as
    /// a PNG into `dir`.
    static func darkHeaderReceipt(in dir: TemporaryDirectory) async throws -> String {
        let source = ReceiptsCLI.testReceipt("uk-parking.jpg")
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        // Where the name is, in the file's pixels (the first pass may scale the page).
        let first = try await OCREngineTests.rawEngine.session(imageData: data, file: source, maxPasses: 1).firstReading()
        let name = try #require(first.lines.first { $0.words.map(\.text).joined(separator: " ").uppercased().contains("CASTLEGATE") })
        let pad = name.box.height / 2          // the next row starts 0.7 of the name's height below it
        var pix = pixRead(source)
        defer { pixDestroy(&pix) }
        var gray = pixConvertTo8(try #require(pix), 0)
        defer { pixDestroy(&gray) }
        let image = try #require(gray)
        let width = pixGetWidth(image)
        var box = boxCreate(0, Int32(name.box.y - pad), width, Int32(name.box.height + 2 * pad))
        defer { boxDestroy(&box) }
        var band = pixClipRectangle(image, box, nil)
        defer { pixDestroy(&band) }
        pixInvert(band, band)
        pixMultConstantGray(band, 100.0 / 255)
        pixAddConstantGray(band, 40)
        pixRasterop(image, 0, Int32(name.box.y - pad), width, Int32(name.box.height + 2 * pad), PIX_SRC, band, 0, 0)
        let path = dir.path("dark-header-parking.png")
        try #require(pixWrite(path, image, Int32(IFF_PNG)) == 0)
        return path
    }

    @Test func aNameWhiteOnADarkBandIsRead() async throws {
        let dir = try TemporaryDirectory()
        let path = try await Self.darkHeaderReceipt(in: dir)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        // One pass alone does not read the band: what the band's reading is for.
        let single = try await OCREngineTests.engine.session(imageData: data, file: path, maxPasses: 1).firstReading()
        #expect(!single.text.uppercased().contains("CASTLEGATE"), "\(single.text)")

        let session = OCREngineTests.engine.session(imageData: data, file: path)
        let reading = try await session.firstReading()
        #expect(session.passesRead == 2, "the page, then the band")
        let top = try #require(reading.lines.first)
        #expect(top.words.map(\.text).joined(separator: " ").uppercased().contains("CASTLEGATE PARKING"), "\(reading.text)")
        #expect(reading.text.hasPrefix(top.words.map(\.text).joined(separator: " ")), "the text follows the lines")

        // And the expense is the clear receipt's.
        let result = try await ReceiptsCLI.run(["process", path, "--store", dir.storePath, "--format", "ndjson"])
        #expect(result.status == 0, "\(result.err)")
        let record = try #require(try result.ndjson().first)
        #expect(record["analysis"]?["vendor"]?.stringValue?.uppercased() == "CASTLEGATE PARKING", "\(result.out)")
        #expect(record["analysis"]?["total"]?.doubleValue == 7.5, "\(result.out)")
    }

    @Test func aPageWithoutBandsHasNoneAndIsReadOnce() async throws {
        for file in ["uk-parking.jpg", "photo-rotated-fuel.jpg", "scan-a4-pub.jpg"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: ReceiptsCLI.testReceipt(file)))
            let session = OCREngineTests.engine.session(imageData: data, file: file)
            _ = try await session.firstReading()
            #expect(session.passesRead == 1, "\(file)")
        }
    }

    /// Row by row, the dark share of the middle of a page: paper 0.05, print 0.15.
    @Test func aBandIsDarkRowsWithPaperAroundAndLightPrintInside() {
        let paper = [Double](repeating: 0.05, count: 100), print = [0.15, 0.2, 0.15]
        let band = [1.0, 1.0, 1.0, 0.7, 0.55, 0.6, 0.7, 0.65, 1.0, 1.0, 1.0]
        let page = paper + band + paper + print + paper
        let found = DarkBands.bands(rowShares: page, width: 500)
        #expect(found == [BoundingBox(x: 0, y: 100, width: 500, height: 11)])
        // Gray print on a darker gray ground: dark at the rows' threshold, told apart at the ground's.
        let dim = [Double](repeating: 1, count: band.count)
        #expect(DarkBands.bands(rowShares: paper + dim + paper, width: 500).isEmpty)
        #expect(DarkBands.bands(rowShares: paper + dim + paper, groundShares: page.prefix(211).map { $0 }, width: 500) == found)
        // A photo's dark margin at the top (no paper above it) is not a band.
        #expect(DarkBands.bands(rowShares: band + paper + paper, width: 500).isEmpty)
        // Nor is a solid bar with nothing printed in it, nor a run of dark rows too tall to be print.
        #expect(DarkBands.bands(rowShares: paper + [Double](repeating: 1, count: 11) + paper, width: 500).isEmpty)
        let tall = [1.0, 1.0] + [Double](repeating: 0.7, count: 40) + [1.0, 1.0]
        #expect(DarkBands.bands(rowShares: paper + tall + paper, width: 500).isEmpty)
        // Ordinary print is not dark enough.
        #expect(DarkBands.bands(rowShares: paper + [0.3, 0.4, 0.35, 0.4] + paper, width: 500).isEmpty)
    }
}
