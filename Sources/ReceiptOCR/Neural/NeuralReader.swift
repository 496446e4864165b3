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
    /// The networks that read the header band again (`NeuralModels.header`).
    package let header: HeaderReader?

    /// A second detector and recognizer for the rows above a page's first priced row.
    package struct HeaderReader: Sendable {
        package let detector: TextDetector
        package let recognizer: TextRecognizer
        /// The most rows read again (`NeuralConfiguration.headerRows`).
        package let rows: Int
    }

    package init(models: NeuralModels) {
        detector = TextDetector(configuration: models.configuration)
        recognizer = TextRecognizer(classes: models.classes, configuration: models.configuration)
        grayInput = models.configuration.grayInput
        header = models.header.map {
            HeaderReader(detector: TextDetector(configuration: $0.configuration),
                         recognizer: TextRecognizer(classes: $0.classes, configuration: $0.configuration),
                         rows: models.configuration.headerRows)
        }
    }

    /// Time spent in each stage of one reading.
    package struct Timing: Sendable {
        package var detection: Duration = .zero
        package var recognition: Duration = .zero
        package var boxes = 0
        /// The recognizer's input: its crops' widths and what it was given with their padding, in pixels.
        package var cropWidth = 0
        package var paddedWidth = 0
        /// The header band read again (detection and recognition), when it was.
        package var header: Duration = .zero
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
        (timing.cropWidth, timing.paddedWidth) = recognizer.inputWidths(of: boxes)
        start = clock.now
        let texts = try recognizer.recognize(boxes, in: page, request: requests.recognizer())
        timing.recognition = clock.now - start
        let words = texts.flatMap { Self.words(of: $0, imageWidth: page.width, imageHeight: page.height) }
        var lines = Self.rows(words)
        if let header, let band = Self.headerBand(lines, rows: header.rows), let headerRequests = try requests.header() {
            start = clock.now
            // The band at the page's own detection scale: its cost is the band's share of the page's.
            let ratio = Double(detector.inputSize(width: page.width, height: page.height).width) / Double(page.width)
            let headerBoxes = try header.detector.detect(page.top(band), request: headerRequests.detector, ratio: ratio)
            let headerTexts = try header.recognizer.recognize(headerBoxes, in: page, request: headerRequests.recognizer())
            let headerWords = headerTexts.flatMap { Self.words(of: $0, imageWidth: page.width, imageHeight: page.height) }
            lines = Self.spliced(lines, header: Self.rows(headerWords), above: band)
            timing.header = clock.now - start
        }
        return (lines, timing)
    }

    /// Where the header band ends: the top of the first row that prints a price (`12.50`, `3,99`),
    /// or of the row after the first `rows` when more are above it — the shop names itself in the
    /// top rows (four of them read again gave the names the whole band gave, at a third of its cost:
    /// docs/neural-reader.md). Nil when no row prints a price, or the first row does.
    package static func headerBand(_ lines: [OCRLine], rows: Int = 4) -> Int? {
        guard let first = lines.firstIndex(where: { price.firstMatch(in: $0.text, range: NSRange($0.text.startIndex..., in: $0.text)) != nil }),
              lines[first].box.y > 0 else { return nil }
        return lines[min(first, max(1, rows))].box.y
    }

    private nonisolated(unsafe) static let price = try! NSRegularExpression(pattern: #"\d[.,]\d{2}(?![\d])"#)

    /// `lines` with the rows whose centre is above `band` replaced by `header`'s rows there.
    package static func spliced(_ lines: [OCRLine], header: [OCRLine], above band: Int) -> [OCRLine] {
        func above(_ line: OCRLine) -> Bool { line.box.y * 2 + line.box.height < band * 2 }
        return header.filter(above) + lines.filter { !above($0) }
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
