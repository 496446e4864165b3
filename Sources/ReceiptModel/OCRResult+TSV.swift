import Foundation

/// Tesseract's TSV format (`tesseract IMG out tsv`, and `receipts ocr --tsv`):
/// `level page_num block_num par_num line_num word_num left top width height conf text`,
/// one row per page/block/paragraph/line/word; words are level 5.
extension OCRResult {
    public static let tsvHeader = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"

    /// Rebuilds an OCR result from TSV (for tests and offline development; `text` is rebuilt from
    /// the words, one line per text line and a blank line between blocks).
    public init(tesseractTSV tsv: String) {
        var lines: [OCRLine] = []
        var text = ""
        var currentKey: (Int, Int, Int)? = nil
        var currentBlock: Int? = nil
        var words: [OCRWord] = []
        var pageWidth = 0, pageHeight = 0

        func flush() {
            guard !words.isEmpty else { return }
            let line = OCRLine(words: words)
            lines.append(line)
            text += line.text + "\n"
            words = []
        }

        for row in tsv.split(separator: "\n", omittingEmptySubsequences: true) {
            let f = row.split(separator: "\t", maxSplits: 11, omittingEmptySubsequences: false)
            guard f.count >= 11, let level = Int(f[0]) else { continue }
            let n = f[0..<10].compactMap { Int($0) }
            guard n.count == 10 else { continue }
            if level == 1 { pageWidth = n[8]; pageHeight = n[9]; continue }
            guard level == 5 else { continue }
            let wordText = f.count > 11 ? String(f[11]).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            guard !wordText.isEmpty else { continue }
            let key = (n[2], n[3], n[4])
            if let k = currentKey, k != key {
                flush()
                if currentBlock != n[2] { text += "\n" }
            }
            currentKey = key
            currentBlock = n[2]
            words.append(OCRWord(text: wordText, confidence: Double(f[10]) ?? 0,
                                 box: BoundingBox(x: n[6], y: n[7], width: n[8], height: n[9])))
        }
        flush()
        self.init(text: text, lines: lines, meanConfidence: OCRResult.meanConfidence(of: lines), imageWidth: pageWidth, imageHeight: pageHeight,
                  sourceWidth: pageWidth, sourceHeight: pageHeight)
    }
}

extension OCRResult {
    /// The result in Tesseract's TSV layout: a page row, then per line a line row and its word rows
    /// (all in block 1, paragraph 1).
    public var tesseractTSV: String {
        var out = Self.tsvHeader + "\n"
        out += "1\t1\t0\t0\t0\t0\t0\t0\t\(imageWidth)\t\(imageHeight)\t-1\t\n"
        for (l, line) in lines.enumerated() {
            let b = line.box
            out += "4\t1\t1\t1\t\(l + 1)\t0\t\(b.x)\t\(b.y)\t\(b.width)\t\(b.height)\t-1\t\n"
            for (w, word) in line.words.enumerated() {
                let wb = word.box
                out += "5\t1\t1\t1\t\(l + 1)\t\(w + 1)\t\(wb.x)\t\(wb.y)\t\(wb.width)\t\(wb.height)\t"
                out += String(format: "%.6f", word.confidence) + "\t\(word.text)\n"
            }
        }
        return out
    }
}
