import CTesseract
import Foundation
import ReceiptModel

/// Print set white on a dark band: a shop's name in a black header, an inverted `TOTAL` row.
/// Tesseract reads dark print on light paper, and such a band comes out of the first pass as
/// nothing or as noise. The first reading finds these bands on the prepared page, reads each one
/// again inverted (a close-up of the band: one more small pass), and keeps that reading in the
/// band's place when it reads more.
package enum DarkBands {
    /// A row is in a band when this share of its middle half is darker than halfway between the
    /// print and the paper (a row through white letters on the band is 45–80% dark; the densest row
    /// of bold black print on paper, under 40%).
    static let darkRow = 0.45
    /// A band has rows this dark too: its ground above or below the letters.
    static let solidRow = 0.9
    /// A row is paper when less of it than this is dark (print on paper is 5–25% dark).
    static let paperRow = 0.3
    /// Bands read at most per page (each is a pass).
    static let maximumBands = 2

    /// The bands of `image` (the prepared page, in its pixels): runs of dark rows thin enough to
    /// be printed (from 1/150 of the page, at least 8 pixels, up to 1/8), with paper just above and
    /// below (the dark margins of a photo are not bands), and some light print inside (a solid bar
    /// is not one). The middle half of each row is measured: a photo's dark table beside the
    /// receipt does not count, and a header band spans the receipt.
    package static func find(in image: LeptonicaImage) -> [BoundingBox] {
        let (width, height) = (image.width, image.height)
        guard width >= 100, height >= 100 else { return [] }
        guard let strip = image.clipped(x: width / 4, y: 0, width: width / 2, height: height)?.grayscale(),
              let dark = strip.grayLevel(rank: 0.03), let paper = strip.grayLevel(rank: 0.5), paper > dark + 40
        else { return [] }
        // Dark rows are darker than halfway to the paper; the print inside a band is told from its
        // ground by a lower threshold, a quarter of the way: a band photographed in dim light has
        // gray letters on a darker gray.
        func shares(below threshold: l_uint32) -> [Double]? {
            guard let binary = strip.transformed({ pixThresholdToBinary($0, Int32(threshold)) }),
                  let rowCounts = pixCountPixelsByRow(binary.pix, nil) else { return nil }
            var counts: UnsafeMutablePointer<NUMA>? = rowCounts
            defer { numaDestroy(&counts) }
            let stripWidth = Double(strip.width)
            return (0..<height).map { y in
                var v: Int32 = 0
                numaGetIValue(rowCounts, Int32(y), &v)
                return Double(v) / stripWidth
            }
        }
        guard let rows = shares(below: (dark + paper) / 2), let ground = shares(below: dark + (paper - dark) / 4) else { return [] }
        return bands(rowShares: rows, groundShares: ground, width: width)
    }

    /// The bands among rows whose dark shares are `rowShares` (top to bottom), as full-width boxes
    /// of `rowShares.count` rows. `groundShares` are the same rows' shares at the lower threshold
    /// that tells a band's print from its ground (`rowShares` when nil).
    package static func bands(rowShares share: [Double], groundShares: [Double]? = nil, width: Int) -> [BoundingBox] {
        let ground = groundShares ?? share
        let height = share.count
        let minimum = max(8, height / 150), maximum = height / 8
        var found: [BoundingBox] = []
        var y = 0
        while y < height, found.count < maximumBands {
            guard share[y] >= darkRow else { y += 1; continue }
            var end = y
            while end + 1 < height, share[end + 1] >= darkRow { end += 1 }
            defer { y = end + 1 }
            let rows = end - y + 1
            let reach = max(3, rows / 2)
            guard rows >= minimum, rows <= maximum,
                  share[max(0, y - reach)..<y].contains(where: { $0 < paperRow }),
                  share[min(height, end + 1)..<min(height, end + 1 + reach)].contains(where: { $0 < paperRow }),
                  ground[y...end].contains(where: { $0 < solidRow }), ground[y...end].filter({ $0 >= solidRow }).count >= 2
            else { continue }
            // The dark rows alone: paper in the crop would be the darkest part once inverted, and
            // Tesseract's threshold would then part paper from band instead of print from ground.
            found.append(BoundingBox(x: 0, y: y, width: width, height: rows))
        }
        return found
    }

    /// The band cut out of `image` and inverted: light print on a dark ground.
    package static func inverted(_ band: BoundingBox, of image: LeptonicaImage) -> LeptonicaImage? {
        image.clipped(x: band.x, y: band.y, width: band.width, height: band.height)?.transformed { pixInvert(nil, $0) }
    }

    /// `first` with the band's lines replaced by `read` (the band read inverted, in page pixels),
    /// when `read` holds more clearly read characters than the first reading had there.
    package static func merge(_ first: OCRResult, band: BoundingBox, read: [OCRLine]) -> OCRResult {
        func inBand(_ line: OCRLine) -> Bool { line.box.midY >= band.y && line.box.midY <= band.maxY }
        func clearCharacters(_ lines: [OCRLine]) -> Int {
            lines.flatMap(\.words).filter { $0.confidence >= 60 }
                .reduce(0) { $0 + $1.text.filter { $0.isLetter || $0.isNumber }.count }
        }
        let before = first.lines.filter(inBand)
        guard clearCharacters(read) > clearCharacters(before) else { return first }
        var lines = first.lines.filter { !inBand($0) }
        let at = lines.firstIndex { $0.box.midY > band.midY } ?? lines.count
        lines.insert(contentsOf: read, at: at)
        var merged = first
        merged.lines = lines
        merged.text = lines.map(\.text).joined(separator: "\n")
        merged.meanConfidence = OCRResult.meanConfidence(of: lines)
        return merged
    }
}
