import Foundation
import ReceiptModel

/// Reads a page with the neural networks: boxes from the detector, their text from the recognizer,
/// words split and boxed from the CTC alignment, boxes grouped into rows.
///
/// Runs on one OCR thread with that thread's requests; the networks are shared.
package struct NeuralReader: Sendable {
    package let detector: TextDetector
    package let recognizer: TextRecognizer
    package let grayInput: Bool

    package init(models: NeuralModels) {
        detector = TextDetector(configuration: models.configuration)
        recognizer = TextRecognizer(classes: models.classes, configuration: models.configuration)
        grayInput = models.configuration.grayInput
    }

    /// Time spent in each stage of one reading.
    package struct Timing: Sendable {
        package var detection: Duration = .zero
        package var recognition: Duration = .zero
        package var boxes = 0
    }

    /// The page's rows of words, in the image's pixels, with confidences 0–100.
    package func read(_ image: LeptonicaImage, requests: NeuralRequests) throws -> (lines: [OCRLine], timing: Timing) {
        guard let page = Raster(image, gray: grayInput) else {
            throw ReceiptError(.badImage, "cannot read the image's pixels for the neural reader")
        }
        var timing = Timing()
        let clock = ContinuousClock()
        var start = clock.now
        let boxes = try detector.detect(page, request: requests.detector)
        timing.detection = clock.now - start
        timing.boxes = boxes.count
        start = clock.now
        let texts = try recognizer.recognize(boxes, in: page, request: requests.recognizer())
        timing.recognition = clock.now - start
        let words = texts.flatMap { Self.words(of: $0, imageWidth: page.width, imageHeight: page.height) }
        return (Self.rows(words), timing)
    }

    /// A box's words with their boxes: each word spans its first to its last character's column
    /// (half a typical step of margin either side), mapped along the text box into the image.
    /// Confidence is the mean of its characters' probabilities × 100.
    package static func words(of text: RecognizedText, imageWidth: Int, imageHeight: Int) -> [OCRWord] {
        let groups = CTCDecoder.words(text.characters)
        let lastColumn = Double(text.cropWidth / text.columnWidth)
        return groups.map { characters in
            let first = Double(characters.first!.column), last = Double(characters.last!.column)
            let u0 = text.position(ofColumn: max(0, first - 0.5)), u1 = text.position(ofColumn: min(lastColumn, last + 1.5))
            let b = text.box.bounds(u0: u0, u1: u1)
            let x0 = max(0, Int(b.minX.rounded(.down))), y0 = max(0, Int(b.minY.rounded(.down)))
            let x1 = min(imageWidth, Int(b.maxX.rounded(.up))), y1 = min(imageHeight, Int(b.maxY.rounded(.up)))
            let confidence = Double(characters.map(\.probability).reduce(0, +)) / Double(characters.count) * 100
            return OCRWord(text: characters.map(\.text).joined(), confidence: confidence,
                           box: BoundingBox(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0)))
        }
    }

    /// Words grouped into rows: a word joins the row whose vertical centre is within half the
    /// smaller of their heights of its own; rows top to bottom, words left to right.
    package static func rows(_ words: [OCRWord]) -> [OCRLine] {
        var rows: [(center: Double, height: Double, words: [OCRWord])] = []
        for word in words.sorted(by: { $0.box.y * 2 + $0.box.height < $1.box.y * 2 + $1.box.height }) {
            let center = Double(word.box.y) + Double(word.box.height) / 2
            let height = Double(word.box.height)
            if let index = rows.lastIndex(where: { abs($0.center - center) <= min($0.height, height) / 2 }) {
                let count = Double(rows[index].words.count)
                rows[index].center = (rows[index].center * count + center) / (count + 1)
                rows[index].height = (rows[index].height * count + height) / (count + 1)
                rows[index].words.append(word)
            } else {
                rows.append((center, height, [word]))
            }
        }
        return rows.map { OCRLine(words: $0.words.sorted { $0.box.x < $1.box.x }) }
            .sorted { $0.box.y < $1.box.y }
    }
}
