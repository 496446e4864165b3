import Foundation
import Testing
@testable import ReceiptModel

/// Joining the readings of a long receipt's overlapping pictures (`PictureJoin`), on readings made
/// here: a receipt's rows laid out at known positions, "photographed" as bands of its height —
/// shifted, at another scale, with a row misread — as OCR would read each picture.
@Suite struct PictureJoinTests {
    /// A receipt of `rows` rows of text, each `height` pixels tall every `pitch` pixels.
    static func receipt(_ rows: [String], pitch: Int = 40, height: Int = 24, width: Int = 600) -> [(text: String, box: BoundingBox)] {
        rows.enumerated().map { i, text in
            (text, BoundingBox(x: 30, y: 20 + i * pitch, width: min(width - 60, 14 * text.count), height: height))
        }
    }

    /// The reading of the band `top..<bottom` of `rows`, as a picture taken at `scale` (its pixels are
    /// the receipt's × scale) shifted by `dx`: rows cut by the band's edges are not read.
    static func picture(_ rows: [(text: String, box: BoundingBox)], top: Int, bottom: Int, scale: Double = 1, dx: Int = 0,
                        misread: [String: String] = [:], width: Int = 600) -> OCRResult {
        var lines: [OCRLine] = []
        for (text, box) in rows where box.y >= top && box.maxY <= bottom {
            let shown = misread[text] ?? text
            // Words of the row, side by side: the description at the left, the amount at the right.
            let parts = shown.split(separator: " ").map(String.init)
            var x = Double(box.x)
            var words: [OCRWord] = []
            for part in parts {
                let w = Double(14 * part.count)
                words.append(OCRWord(text: part, confidence: 90, box: BoundingBox(
                    x: Int((x * scale).rounded()) + dx, y: Int((Double(box.y - top) * scale).rounded()),
                    width: Int((w * scale).rounded()), height: Int((Double(box.height) * scale).rounded()))))
                x += w + 14
            }
            lines.append(OCRLine(words: words))
        }
        let h = Int((Double(bottom - top) * scale).rounded()), w = Int((Double(width) * scale).rounded())
        return OCRResult(text: lines.map(\.text).joined(separator: "\n"), lines: lines, meanConfidence: 90,
                         imageWidth: w, imageHeight: h, sourceWidth: w, sourceHeight: h)
    }

    static let rows: [String] = ["RIDGEWAY HARDWARE", "14 Station Road", "08/03/2025 10:42"]
        + (1...24).map { "ITEM NUMBER \($0) WIDGET \(String(format: "%d.%02d", $0, ($0 * 7) % 100))" }
        + ["SUBTOTAL 123.45", "TOTAL 123.45", "VISA DEBIT 123.45", "VAT 20.58"]

    @Test func twoOverlappingPicturesKeepEveryRowOnceInOrder() throws {
        let receipt = Self.receipt(Self.rows)
        let height = 20 + Self.rows.count * 40 + 20
        let top = Self.picture(receipt, top: 0, bottom: height * 62 / 100)
        let bottom = Self.picture(receipt, top: height * 38 / 100, bottom: height)
        let join = PictureJoin.plan([[top], [bottom]])
        #expect(join.overlapRows.count == 1 && join.overlapRows[0] >= 5, "the overlap's rows were found: \(join.overlapRows)")
        let joined = try #require(join.join([top, bottom]))
        #expect(joined.lines.map(\.text) == Self.rows, "each row once, in order")
        // The lower picture's rows are placed where they are on the receipt (the first picture's pixels).
        let total = try #require(joined.lines.first { $0.text.hasPrefix("TOTAL") })
        #expect(abs(total.box.y - receipt.first { $0.text.hasPrefix("TOTAL") }!.box.y) <= 2)
    }

    @Test func threePicturesAtOtherScalesAndShiftsWithAMisreadRow() throws {
        let receipt = Self.receipt(Self.rows)
        let height = 20 + Self.rows.count * 40 + 20
        // The second taken nearer (1.1×) and moved sideways; the third farther (0.9×); the second
        // misreads a row of the overlap.
        let first = Self.picture(receipt, top: 0, bottom: height * 40 / 100)
        let second = Self.picture(receipt, top: height * 30 / 100, bottom: height * 72 / 100, scale: 1.1, dx: 25,
                                  misread: ["ITEM NUMBER 11 WIDGET 11.77": "ITEM NUMRER 11 WIDGET 11.77"])
        let third = Self.picture(receipt, top: height * 62 / 100, bottom: height, scale: 0.9, dx: -10)
        let join = PictureJoin.plan([[first], [second], [third]])
        #expect(join.overlapRows.allSatisfy { $0 >= 2 }, "\(join.overlapRows)")
        let joined = try #require(join.join([first, second, third]))
        let texts = joined.lines.map(\.text)
        #expect(texts.count == Self.rows.count, "\(texts)")
        #expect(texts.filter { $0.contains("11.77") }.count == 1, "an item of the overlap is kept once")
        #expect(texts.last == "VAT 20.58" && texts.first == "RIDGEWAY HARDWARE")
        // Rows keep their places across scales: every row's top within a few pixels of the receipt's.
        for line in joined.lines {
            let key = NameMatching.normalized(line.text)
            guard let original = receipt.first(where: { NameMatching.normalized($0.text) == key }) else { continue }
            #expect(abs(line.box.y - original.box.y) <= 4, "\(line.text): \(line.box.y) vs \(original.box.y)")
        }
    }

    @Test func picturesWithNoRowInCommonAreLaidOutOneBelowTheOther() throws {
        let receipt = Self.receipt(Self.rows)
        let height = 20 + Self.rows.count * 40 + 20
        // Cut between two rows: nothing of one picture is in the other.
        let cut = 20 + 16 * 40 - 8
        let top = Self.picture(receipt, top: 0, bottom: cut)
        let bottom = Self.picture(receipt, top: cut, bottom: height)
        let join = PictureJoin.plan([[top], [bottom]])
        #expect(join.overlapRows == [0])
        let joined = try #require(join.join([top, bottom]))
        #expect(joined.lines.map(\.text) == Self.rows)
        #expect(joined.imageHeight == top.imageHeight + bottom.imageHeight)
    }

    @Test func aRepeatedPriceIsNoOverlap() throws {
        // Two pictures of different parts whose only rows alike are a price printed on both.
        let a = Self.picture(Self.receipt(["MILLBROOK MARKET", "BREAD 1.40", "MILK 1.55", "EGGS 3.25", "TEA 1.40"]), top: 0, bottom: 220)
        let b = Self.picture(Self.receipt(["CHEESE 3.60", "JAM 1.40", "RICE 2.30", "TOTAL 13.90", "CARD 13.90"]), top: 0, bottom: 220)
        let join = PictureJoin.plan([[a], [b]])
        #expect(join.overlapRows == [0])
        #expect(try #require(join.join([a, b])).lines.count == 10)
    }

    @Test func theSecondReadersReadingIsJoinedWithTheSamePlacements() throws {
        let receipt = Self.receipt(Self.rows)
        let height = 20 + Self.rows.count * 40 + 20
        let top = Self.picture(receipt, top: 0, bottom: height * 62 / 100)
        let bottom = Self.picture(receipt, top: height * 38 / 100, bottom: height, scale: 1.05)
        // The other reader reads the same pixels a little differently.
        let topNeural = Self.picture(receipt, top: 0, bottom: height * 62 / 100, misread: ["TOTAL 123.45": "T0TAL 123.45"])
        let bottomNeural = Self.picture(receipt, top: height * 38 / 100, bottom: height, scale: 1.05)
        let join = PictureJoin.plan([[top, topNeural], [bottom, bottomNeural]])
        let t = try #require(join.join([top, bottom])), n = try #require(join.join([topNeural, bottomNeural]))
        #expect(t.lines.count == n.lines.count)
        for (a, b) in zip(t.lines, n.lines) { #expect(a.box == b.box) }
        // A reading missing for one picture: no joined reading for that reader.
        #expect(join.join([top, nil]) == nil)
    }

    @Test func aBoxOfTheJoinedReadingIsFoundOnItsPicture() throws {
        let receipt = Self.receipt(Self.rows)
        let height = 20 + Self.rows.count * 40 + 20
        let top = Self.picture(receipt, top: 0, bottom: height * 62 / 100)
        let bottom = Self.picture(receipt, top: height * 38 / 100, bottom: height, scale: 1.2)
        let join = PictureJoin.plan([[top], [bottom]])
        let joined = try #require(join.join([top, bottom]))
        let vat = try #require(joined.lines.last?.words.last)
        let (picture, box) = try #require(join.locate(vat.box))
        #expect(picture == 1)
        let original = try #require(bottom.lines.last?.words.last)
        #expect(abs(box.x - original.box.x) <= 2 && abs(box.y - original.box.y) <= 2, "\(box) vs \(original.box)")
        let vendor = try #require(joined.lines.first?.words.first)
        #expect(join.locate(vendor.box)?.picture == 0)
    }

    @Test func picturesAreNamedAndOrderedAsPeopleNumberThem() {
        #expect(PictureGroup.member("IMG_0042-2")! == ("IMG_0042", 2))
        #expect(PictureGroup.member("receipt-10")! == ("receipt", 10))
        #expect(PictureGroup.member("receipt-0") == nil && PictureGroup.member("receipt-123") == nil && PictureGroup.member("receipt") == nil)
        #expect(PictureGroup.inNameOrder(["IMG_10.jpg", "IMG_9.jpg", "IMG_1.jpg"]) == ["IMG_1.jpg", "IMG_9.jpg", "IMG_10.jpg"])
        // A long receipt's pictures numbered after its own number (TestReceipts/long's NAME-<n>-<k>).
        #expect(PictureGroup.member("garden-3-1")! == ("garden-3", 1))
        #expect(PictureGroup.member("scan-2")! == ("scan", 2))
    }

    /// A name ending in a date names the day of a receipt, not a picture of one (issue 56): two
    /// receipts of the 14th and the 15th are never candidates to join.
    @Test func aDateInANameIsNotAPictureNumber() {
        for stem in ["receipt-2024-03-14", "receipt-2024-03-15", "2024-03-15", "scan 2024-3-1", "IMG-2023-12-31",
                     "receipt-14-03-24", "fuel-03-14-24", "statement-2024-03", "2024-12"] {
            #expect(PictureGroup.member(stem) == nil, "\(stem)")
        }
        // Not dates: a month 13, a day 32, a year of two digits alone.
        #expect(PictureGroup.member("receipt-2024-13")! == ("receipt-2024", 13))
        #expect(PictureGroup.member("shop-12-32")! == ("shop-12", 32))
        #expect(PictureGroup.member("hardware-10-2")! == ("hardware-10", 2))
    }

    /// Which of a receipt's pictures were joined as parts of one (`overlapRows` of each picture
    /// after the first, as `analysis.pictures` records it): runs of pictures that overlap.
    @Test func picturesThatShareNoRowsAreRunsApart() {
        #expect(PictureJoin.runs(overlapRows: [3, 2]) == [[1, 2, 3]])
        #expect(PictureJoin.runs(overlapRows: [0, 0]) == [[1], [2], [3]])
        #expect(PictureJoin.runs(overlapRows: [4, 0, 2]) == [[1, 2], [3, 4]])
        #expect(PictureJoin.runs(overlapRows: []) == [[1]])
        let analysis = ReceiptAnalysis(analyzer: "t", details: [("pictures", .array([
            .object([("file", .string("a-1.jpg"))]), .object([("file", .string("a-2.jpg")), ("overlapRows", .int(0))]),
        ]))])
        #expect(analysis.pictureRuns == [[1], [2]])
        #expect(ReceiptAnalysis(analyzer: "t").pictureRuns == nil)
    }
}
