import Foundation
import ReceiptModel

/// One printed row of a receipt, prepared for the field parsers.
package struct ReceiptLine: Sendable {
    /// Position in reading order (top to bottom).
    package var index: Int
    /// The row's text, words joined by single spaces.
    package var text: String
    /// `text` upper-cased, for keyword matching.
    package var upper: String
    /// The row's words with boxes; empty when the document was built from plain text.
    package var words: [OCRWord]
    /// Mean word confidence 0–100 (100 for plain text).
    package var confidence: Double
    package var box: BoundingBox?

    package init(index: Int, text: String, words: [OCRWord] = [], confidence: Double = 100, box: BoundingBox? = nil) {
        self.index = index
        self.text = text
        self.upper = text.uppercased()
        self.words = words
        self.confidence = confidence
        self.box = box
    }
}

/// A receipt's rows in reading order, built from OCR output or from plain text.
///
/// OCR sometimes splits one printed row into two lines (a label at the left, its amount in a
/// right-hand column). Lines whose boxes share most of their height and do not overlap
/// horizontally are merged back into one row, left to right.
package struct ReceiptDocument: Sendable {
    package var lines: [ReceiptLine]
    /// Width of the image the boxes refer to (0 when unknown).
    package var imageWidth: Int
    package var imageHeight: Int

    package init(lines: [ReceiptLine], imageWidth: Int = 0, imageHeight: Int = 0) {
        self.lines = lines
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
    }

    /// Plain text, one row per line (for tests and text-only input).
    package init(text: String) {
        let rows = text.split(whereSeparator: \.isNewline)
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty }
        self.init(lines: rows.enumerated().map { ReceiptLine(index: $0.offset, text: $0.element) })
    }

    package init(ocr: OCRResult) {
        if ocr.lines.isEmpty {
            self.init(text: ocr.text)
            return
        }
        var rows: [[OCRWord]] = []
        var rowBoxes: [BoundingBox] = []
        for line in ocr.lines where !line.words.isEmpty {
            if let i = ReceiptDocument.rowToJoin(line.box, rows: rowBoxes) {
                rows[i].append(contentsOf: line.words)
                rows[i].sort { $0.box.x < $1.box.x }
                rowBoxes[i] = rowBoxes[i].union(line.box)
            } else {
                rows.append(line.words)
                rowBoxes.append(line.box)
            }
        }
        var lines: [ReceiptLine] = []
        for (words, box) in zip(rows, rowBoxes) {
            let kept = words.filter { !ReceiptDocument.isNoise($0) }
            guard !kept.isEmpty else { continue }
            let confidence = kept.map(\.confidence).reduce(0, +) / Double(kept.count)
            lines.append(ReceiptLine(index: lines.count, text: kept.map(\.text).joined(separator: " "),
                                     words: kept, confidence: confidence, box: box))
        }
        self.init(lines: lines, imageWidth: ocr.imageWidth, imageHeight: ocr.imageHeight)
    }

    /// A recent row (among the last few) that `box` continues sideways, if any.
    private static func rowToJoin(_ box: BoundingBox, rows: [BoundingBox]) -> Int? {
        guard box.height > 0 else { return nil }
        for i in rows.indices.suffix(3).reversed() {
            let other = rows[i]
            let overlap = min(box.maxY, other.maxY) - max(box.y, other.y)
            let smaller = min(box.height, other.height)
            guard smaller > 0, Double(overlap) >= 0.6 * Double(smaller) else { continue }
            // Heights must be alike (a tall logo line is not a row of small print).
            guard Double(max(box.height, other.height)) <= 2.2 * Double(smaller) else { continue }
            if box.x >= other.maxX - 2 || box.maxX <= other.x + 2 { return i }
        }
        return nil
    }

    /// Specks Tesseract reads as characters: tiny boxes or zero confidence punctuation.
    private static func isNoise(_ word: OCRWord) -> Bool {
        if word.box.height > 0 && word.box.height < 6 && word.box.width < 8 { return true }
        if word.confidence < 1 && !word.text.contains(where: \.isNumber) {
            // "D.I.Y.", "{SP}": short capitals with dots or brackets that Tesseract scores at 0.
            let letters = word.text.filter(\.isLetter)
            let kept = letters.count >= 2 && letters.allSatisfy(\.isUppercase) && word.text.count <= 8
                && word.text.allSatisfy { $0.isLetter || ".(){}&-".contains($0) }
            // "Subtote!" (0.4): a summary label Tesseract read without trust is still the label.
            return !kept && !isSummaryLabel(word.text)
        }
        return false
    }

    /// Summary labels kept even when Tesseract scores the word 0: the rows they name carry the
    /// amounts the tax and total rules check against each other.
    private static let summaryLabels: Set<String> = ["SUBTOTAL", "TAX", "VAT", "GST"]

    /// True when the word, after LabelText's repairs, is one summary label word alone.
    private static func isSummaryLabel(_ text: String) -> Bool {
        let words = LabelText(text).words
        return words.count == 1 && summaryLabels.contains(words[0])
    }

    /// All rows' text joined by newlines, upper-cased.
    package var upperText: String { lines.map(\.upper).joined(separator: "\n") }
}

extension BoundingBox {
    package func union(_ other: BoundingBox) -> BoundingBox {
        let minX = Swift.min(x, other.x), minY = Swift.min(y, other.y)
        return BoundingBox(x: minX, y: minY, width: Swift.max(maxX, other.maxX) - minX,
                           height: Swift.max(maxY, other.maxY) - minY)
    }
}
