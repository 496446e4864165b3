import Foundation
import ReceiptModel
import ReceiptOCR
import Testing

/// The neural reader's pure parts on inputs made here: DB post-processing on a small probability
/// map, CTC decoding on a small probability matrix.
@Suite struct NeuralPostProcessingTests {
    /// A `width × height` map, 0.05 everywhere but in the given rectangles (x, y, w, h, value).
    static func map(width: Int, height: Int, blobs: [(Int, Int, Int, Int, Float)]) -> ProbabilityMap {
        var values = [Float](repeating: 0.05, count: width * height)
        for (x, y, w, h, value) in blobs {
            for row in y..<(y + h) { for column in x..<(x + w) { values[row * width + column] = value } }
        }
        return ProbabilityMap(width: width, height: height, values: values)
    }

    @Test func twoBlobsGiveTwoUnclippedBoxesAndAFaintOneIsDropped() {
        // Two text lines' cores (20×4 and 12×4 pixels) and a blob above the threshold whose mean
        // probability (0.4) stays under the box threshold (0.5).
        let map = Self.map(width: 60, height: 40, blobs: [(5, 5, 20, 4, 0.9), (30, 20, 12, 4, 0.8), (10, 30, 10, 4, 0.4)])
        let post = DBPostProcess(threshold: 0.3, boxThreshold: 0.5, unclipRatio: 1.5, dilate: false)
        let boxes = post.boxes(in: map).sorted { $0.center.y < $1.center.y }
        #expect(boxes.count == 2)
        let first = try! #require(boxes.first)
        // The core is 20×4; unclip grows each side by area × ratio / perimeter = 80 × 1.5 / 48 = 2.5.
        #expect(abs(first.width - 25) < 0.01 && abs(first.height - 9) < 0.01)
        #expect(abs(first.center.x - 15) < 0.01 && abs(first.center.y - 7) < 0.01)
        #expect(abs(first.angle) < 1e-9)
        #expect(abs(first.score - 0.9) < 1e-6)
        let second = boxes[1]
        #expect(abs(second.center.x - 36) < 0.01 && abs(second.center.y - 22) < 0.01)
        #expect(second.width > 12 && second.height > 4)
    }

    @Test func dilationJoinsLettersOnePixelApart() {
        let letters = Self.map(width: 40, height: 20, blobs: [(5, 5, 4, 6, 0.9), (10, 5, 4, 6, 0.9)])
        let apart = DBPostProcess(threshold: 0.3, boxThreshold: 0.5, unclipRatio: 1.5, dilate: false)
        #expect(apart.boxes(in: letters).count == 2)
        var joined = apart
        joined.dilate = true
        #expect(joined.boxes(in: letters).count == 1)
    }

    @Test func aTiltedLineGetsATiltedBox() {
        // A line 30 pixels long and 4 high, rising 1 in 10 (5.7°).
        var values = [Float](repeating: 0, count: 60 * 30)
        for x in 10..<40 {
            let top = 15 - (x - 10) / 10
            for y in top..<(top + 4) { values[y * 60 + x] = 0.9 }
        }
        let box = try! #require(DBPostProcess(threshold: 0.3, boxThreshold: 0.5, unclipRatio: 1.5, dilate: false)
            .boxes(in: ProbabilityMap(width: 60, height: 30, values: values)).first)
        #expect(box.angle < -0.03 && box.angle > -0.2, "rising to the right is a negative angle in image coordinates")
        #expect(box.width > box.height * 3)
    }

    @Test func boxesScaleBackToThePage() {
        let box = TextBox(center: Point(10, 5), width: 8, height: 2, angle: 0, score: 1).scaled(2, 3)
        #expect(box.center == Point(20, 15) && box.width == 16 && box.height == 6 && box.angle == 0)
    }

    // MARK: CTC

    static let classes = ["", "2", "0", "/", "6", ":", " "]

    /// A `columns × classes` matrix with each column's winning class at 0.9.
    static func probabilities(_ winners: [Int]) -> [Float] {
        var values = [Float](repeating: 0.1 / Float(classes.count - 1), count: winners.count * classes.count)
        for (column, k) in winners.enumerated() { values[column * classes.count + k] = 0.9 }
        return values
    }

    @Test func repeatsCollapseAndBlanksDrop() {
        // 2 2 _ 0 0 _ 0 → "200"; a blank between two 0s keeps both.
        let values = Self.probabilities([1, 1, 0, 2, 2, 0, 2])
        let characters = values.withUnsafeBufferPointer { CTCDecoder.decode($0, columns: 7, classes: Self.classes) }
        #expect(characters.map(\.text).joined() == "200")
        #expect(characters.map(\.column) == [0, 3, 6])
        #expect(characters.allSatisfy { abs($0.probability - 0.9) < 1e-6 })
    }

    @Test func paddingColumnsAreNotRead() {
        let values = Self.probabilities([1, 0, 2, 0, 4, 4])
        let characters = values.withUnsafeBufferPointer { CTCDecoder.decode($0, columns: 6, classes: Self.classes, validColumns: 3) }
        #expect(characters.map(\.text) == ["2", "0"])
    }

    @Test func aWideGapSplitsWordsTheRecognizerPrintedNoSpaceBetween() {
        // "20/0" then, after a gap three times the usual step, "6:0"; and a printed space.
        let spaced: [(String, Int)] = [("2", 0), ("0", 2), ("/", 4), ("0", 6), ("6", 13), (":", 15), ("0", 17), (" ", 19), ("2", 21)]
        let words = CTCDecoder.words(spaced.map { CTCCharacter($0.0, column: $0.1, probability: 0.9) })
        #expect(words.map { $0.map(\.text).joined() } == ["20/0", "6:0", "2"])
        // Even steps never split.
        let even = (0..<8).map { CTCCharacter("0", column: $0 * 3, probability: 0.9) }
        #expect(CTCDecoder.words(even).count == 1)
    }

    @Test func aSpaceTheRecognizerHalfSawSplitsANarrowerGap() {
        // Columns: 2 at 0, blank with the space at 0.2 at 1–4, 0 at 5: a gap of 5, under twice the
        // usual step (3), split because the space class rose in it; the same gap without it is kept.
        let winners = [1, 0, 0, 0, 0, 2, 0, 0, 2, 0, 0, 2]
        var values = Self.probabilities(winners)
        values[2 * Self.classes.count + 6] = 0.2
        let characters = values.withUnsafeBufferPointer { CTCDecoder.decode($0, columns: winners.count, classes: Self.classes) }
        #expect(characters[1].spaceBefore == 0.2 && characters[2].spaceBefore < 0.03)
        #expect(CTCDecoder.words(characters).map { $0.map(\.text).joined() } == ["2", "000"])
        let plain = Self.probabilities(winners).withUnsafeBufferPointer { CTCDecoder.decode($0, columns: winners.count, classes: Self.classes) }
        #expect(CTCDecoder.words(plain).count == 1)
    }

    /// `rec-top.onnx`'s three values a column (best probability, best class, space probability)
    /// decode to the characters, probabilities and half-seen spaces the full scores decode to.
    @Test func theBestClassPerColumnDecodesAsTheFullScores() {
        let winners = [1, 1, 0, 0, 0, 2, 0, 3, 3, 0, 4, 5, 0, 2]
        var values = Self.probabilities(winners)
        values[3 * Self.classes.count + 6] = 0.25
        values[4 * Self.classes.count + 6] = 0.3
        values[7 * Self.classes.count + 3] = 0.7
        let top = winners.indices.flatMap { column -> [Float] in
            let row = Array(values[(column * Self.classes.count)..<((column + 1) * Self.classes.count)])
            let best = row.indices.max { row[$0] < row[$1] }!
            return [row[best], Float(best), row[Self.classes.count - 1]]
        }
        let full = values.withUnsafeBufferPointer { CTCDecoder.decode($0, columns: winners.count, classes: Self.classes) }
        let fromTop = top.withUnsafeBufferPointer { CTCDecoder.decode(top: $0, columns: winners.count, classes: Self.classes) }
        #expect(fromTop == full)
        #expect(fromTop.map(\.text).joined() == "20/6:0" && fromTop[1].spaceBefore == 0.3)
    }

    /// With packing, crops narrower than the 320 px floor share input rows that stay within it;
    /// without it, each crop is a row of its own.
    @Test func shortCropsShareRowsWithinTheFloor() {
        var configuration = NeuralConfiguration(directory: "", recognizerPacking: true, recognizerPackingGap: 32)
        let widths = [400, 160, 120, 96, 64, 48]
        let packed = TextRecognizer(classes: Self.classes, configuration: configuration).rows(widths)
        #expect(packed.map { $0.crops.map(\.index) } == [[0], [1, 2], [3, 4, 5]])
        #expect(packed.map(\.width) == [400, 312, 272])
        #expect(packed[1].crops.map(\.offset) == [0, 192] && packed[2].crops.map(\.offset) == [0, 128, 224])
        configuration.recognizerPacking = false
        #expect(TextRecognizer(classes: Self.classes, configuration: configuration).rows(widths).count == widths.count)
    }

    @Test func characterColumnsMapToWordBoxes() {
        // A box 200×20 at (100, 50), upright; crop 160 wide in columns of 8 pixels (20 columns).
        let box = TextBox(center: Point(200, 60), width: 200, height: 20, angle: 0, score: 1)
        let characters = [("A", 1), ("B", 3), ("C", 14), ("D", 16)].map { CTCCharacter($0.0, column: $0.1, probability: 0.8) }
        let text = RecognizedText(box: box, characters: characters, columnWidth: 8, cropWidth: 160)
        let words = NeuralReader.words(of: text, imageWidth: 1000, imageHeight: 1000)
        #expect(words.map(\.text) == ["AB", "CD"])
        // "AB": columns 0.5 … 4.5 of 20 → 2.5% … 22.5% of 200 px from x = 100.
        #expect(words[0].box == BoundingBox(x: 105, y: 50, width: 40, height: 20))
        #expect(words[1].box.x == 100 + 135 && words[1].box.maxX == 100 + 175)
        #expect(abs(words[0].confidence - 80) < 1e-3)
    }

    @Test func wordsGroupIntoRowsLeftToRight() {
        func word(_ text: String, _ x: Int, _ y: Int) -> OCRWord { OCRWord(text: text, confidence: 90, box: BoundingBox(x: x, y: y, width: 40, height: 20)) }
        let rows = NeuralReader.rows([word("9.99", 300, 102), word("TOTAL", 10, 100), word("DATE", 10, 140)])
        #expect(rows.map(\.text) == ["TOTAL 9.99", "DATE"])
    }

    /// Long rows are read fewer at a time, so a receipt of long rows does not hold eight of them
    /// padded to the longest in the recognizer's memory; short ones still go eight at a time.
    @Test func batchesKeepRowsTimesPaddedWidthWithinTheBudget() {
        let recognizer = TextRecognizer(classes: ["", "A"], configuration: NeuralConfiguration(
            directory: "", batchSize: 8, recognizerMinimumWidth: 320, recognizerBatchWidth: 2560))
        let widths = [1900, 80] + Array(repeating: 100, count: 9) + [640, 700, 600, 900, 1300]
        let batches = recognizer.batches(widths)
        #expect(batches.flatMap { $0 }.sorted() == Array(widths.indices), "every row read once")
        for batch in batches {
            let padded = max(320, batch.map { widths[$0] }.max()!)
            #expect(batch.count <= 8 && (batch.count == 1 || batch.count * padded <= 2560), "\(batch.map { widths[$0] })")
        }
        #expect(batches.map { $0.map { widths[$0] } } == [
            [80, 100, 100, 100, 100, 100, 100, 100], [100, 100, 600, 640], [700, 900], [1300], [1900],
        ])
    }
}
