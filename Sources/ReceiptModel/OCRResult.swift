/// A rectangle in image pixels (of the image OCR ran on, see `OCRResult.imageWidth`).
public struct BoundingBox: Sendable, Equatable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var midY: Int { y + height / 2 }
}

public struct OCRWord: Sendable, Equatable {
    public var text: String
    /// Tesseract's confidence, 0–100.
    public var confidence: Double
    public var box: BoundingBox

    public init(text: String, confidence: Double, box: BoundingBox) {
        self.text = text
        self.confidence = confidence
        self.box = box
    }
}

public struct OCRLine: Sendable, Equatable {
    public var words: [OCRWord]
    public var box: BoundingBox

    public init(words: [OCRWord], box: BoundingBox) {
        self.words = words
        self.box = box
    }

    /// A line around `words` (which must not be empty): its box is the union of theirs.
    public init(words: [OCRWord]) {
        let minX = words.map(\.box.x).min() ?? 0, minY = words.map(\.box.y).min() ?? 0
        let maxX = words.map(\.box.maxX).max() ?? 0, maxY = words.map(\.box.maxY).max() ?? 0
        self.init(words: words, box: BoundingBox(x: minX, y: minY, width: maxX - minX, height: maxY - minY))
    }

    /// The words joined by single spaces.
    public var text: String { words.map(\.text).joined(separator: " ") }
}

/// What OCR read from one image.
public struct OCRResult: Sendable, Equatable {
    /// Tesseract's text output (lines separated by newlines, blocks by blank lines).
    public var text: String
    public var lines: [OCRLine]
    /// Mean word confidence, 0–100 (0 when no words were found).
    public var meanConfidence: Double
    /// Size of the image OCR ran on, after preprocessing; boxes are in these pixels.
    public var imageWidth: Int
    public var imageHeight: Int
    /// Size of the image as decoded from the file (after EXIF orientation).
    public var sourceWidth: Int
    public var sourceHeight: Int

    /// How many words were read.
    public var wordCount: Int { lines.reduce(0) { $0 + $1.words.count } }

    public init(text: String, lines: [OCRLine], meanConfidence: Double,
                imageWidth: Int, imageHeight: Int, sourceWidth: Int, sourceHeight: Int) {
        self.text = text
        self.lines = lines
        self.meanConfidence = meanConfidence
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
    }

    public var words: [OCRWord] { lines.flatMap(\.words) }

    /// The mean confidence of the lines' words, 0 when there are none.
    package static func meanConfidence(of lines: [OCRLine]) -> Double {
        let words = lines.flatMap(\.words)
        return words.isEmpty ? 0 : words.map(\.confidence).reduce(0, +) / Double(words.count)
    }
}
