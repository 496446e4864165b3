import ReceiptModel

/// Builds an OCR result from text rows (one word box per token) for analyzer tests.
func ocrResult(_ text: String) -> OCRResult {
    var lines: [OCRLine] = []
    for (i, row) in text.split(separator: "\n").enumerated() {
        var x = 10
        let words = row.split(separator: " ").map { (token: Substring) -> OCRWord in
            defer { x += token.count * 12 + 12 }
            return OCRWord(text: String(token), confidence: 95, box: BoundingBox(x: x, y: 10 + i * 30, width: token.count * 12, height: 20) as BoundingBox)
        }
        lines.append(OCRLine(words: words, box: BoundingBox(x: 10, y: 10 + i * 30, width: max(1, x - 10), height: 20)))
    }
    return OCRResult(text: text, lines: lines, meanConfidence: 95, imageWidth: 800, imageHeight: 40 + lines.count * 30,
                     sourceWidth: 800, sourceHeight: 40 + lines.count * 30)
}
