import Foundation
import ReceiptModel

/// What the recognizer read in one text box: its characters and where they sit along it.
package struct RecognizedText: Sendable {
    package var box: TextBox
    package var characters: [CTCCharacter]
    /// The recognizer's input pixels a column stands for along the box.
    package var columnWidth: Double
    /// The width, in the recognizer's pixels, the box was resized to (its text runs over 0…this).
    package var cropWidth: Double

    package init(box: TextBox, characters: [CTCCharacter], columnWidth: Double, cropWidth: Double) {
        self.box = box
        self.characters = characters
        self.columnWidth = columnWidth
        self.cropWidth = cropWidth
    }

    /// Where column `column` begins along the box, 0 (left end) … 1 (right end).
    package func position(ofColumn column: Double) -> Double {
        min(1, max(0, column * columnWidth / cropWidth))
    }
}

/// Reads the text in boxes with a CTC recognition model.
///
/// Each box is cut out of the page upright (bilinear sampling along its own axes, so a tilted line
/// comes out level) at the model's height and a width keeping its aspect ratio; crops are sorted by
/// width and read in batches padded to the widest of the batch (at least `minimumWidth`),
/// normalized `(x / 255 − 0.5) / 0.5` in BGR order; the output is decoded greedily (`CTCDecoder`).
package struct TextRecognizer: Sendable {
    package var classes: [String]
    package var height: Int
    package var minimumWidth: Int
    package var batchSize: Int
    /// Most rows × padded width in one batch (see `NeuralConfiguration.recognizerBatchWidth`).
    package var batchWidth: Int
    /// Crops are never wider than this (a box 40 times wider than high is squeezed).
    package var maximumWidth: Int

    package init(classes: [String], configuration: NeuralConfiguration) {
        self.classes = classes
        height = configuration.modelSet.recognizerHeight
        minimumWidth = configuration.recognizerMinimumWidth
        batchSize = max(1, configuration.batchSize)
        batchWidth = configuration.recognizerBatchWidth
        maximumWidth = height * 40
    }

    /// The crop width of a box: its aspect ratio at the model's height, in multiples of 8.
    package func cropWidth(of box: TextBox) -> Int {
        let ratio = box.width / max(box.height, 1)
        return min(maximumWidth, max(8, Int((Double(height) * ratio / 8).rounded(.up)) * 8))
    }

    /// The text of every box, in the order of `boxes`.
    func recognize(_ boxes: [TextBox], in page: Raster, request: InferRequest) throws -> [RecognizedText] {
        let widths = boxes.map(cropWidth)
        var results = [RecognizedText?](repeating: nil, count: boxes.count)
        for batch in batches(widths) {
            let batchWidth = max(minimumWidth, batch.map { widths[$0] }.max()!)
            var input = [Float](repeating: 0, count: batch.count * 3 * height * batchWidth)
            for (slot, index) in batch.enumerated() {
                crop(boxes[index], from: page, width: widths[index], into: &input,
                     at: slot * 3 * height * batchWidth, stride: batchWidth)
            }
            let output = try request.infer(input, shape: [batch.count, 3, height, batchWidth])
            guard output.shape.count == 3, output.shape[0] == batch.count, output.shape[2] == classes.count else {
                throw ReceiptError(.ocrFailed, "the recognition model answered shape \(output.shape); its character list has \(classes.count) classes")
            }
            let columns = output.shape[1]
            let columnWidth = Double(batchWidth) / Double(columns)
            for (slot, index) in batch.enumerated() {
                let valid = Int((Double(widths[index]) / columnWidth).rounded(.up))
                let slice = UnsafeBufferPointer(rebasing: output.values[(slot * columns * classes.count)..<((slot + 1) * columns * classes.count)])
                let characters = CTCDecoder.decode(slice, columns: columns, classes: classes, validColumns: valid)
                results[index] = RecognizedText(box: boxes[index], characters: characters, columnWidth: columnWidth,
                                                cropWidth: Double(widths[index]))
            }
        }
        return results.map { $0! }
    }

    /// The boxes (indices into `widths`, their crop widths) read together: sorted by width, at most
    /// `batchSize` a batch, and only as many as keep rows × padded width within `batchWidth` (one
    /// row at least), so a batch of long rows holds fewer of them.
    package func batches(_ widths: [Int]) -> [[Int]] {
        let order = widths.indices.sorted { widths[$0] < widths[$1] }
        var batches: [[Int]] = []
        var start = 0
        while start < order.count {
            var end = start + 1
            // Sorted, so the row added is the widest of the batch: the one it is padded to.
            while end < min(start + batchSize, order.count),
                  (end - start + 1) * max(minimumWidth, widths[order[end]]) <= batchWidth {
                end += 1
            }
            batches.append(Array(order[start..<end]))
            start = end
        }
        return batches
    }

    /// Samples `box` upright into `width × height` pixels of `input` (channels first, BGR,
    /// normalized), starting at `offset`, rows `stride` values apart; the rest stays 0 (padding).
    func crop(_ box: TextBox, from page: Raster, width: Int, into input: inout [Float], at offset: Int, stride: Int) {
        let plane = height * stride
        let (along, across) = (box.along, box.across)
        let (du, dv) = (box.width / Double(width), box.height / Double(height))
        let origin = box.point(u: 0, v: 0)
        input.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let v = (Double(y) + 0.5) * dv
                for x in 0..<width {
                    let u = (Double(x) + 0.5) * du
                    let px = origin.x + u * along.x + v * across.x, py = origin.y + u * along.y + v * across.y
                    let o = offset + y * stride + x
                    if page.channels == 1 {
                        let g = page.sample(px, py, 0) / 127.5 - 1
                        out[o] = g; out[plane + o] = g; out[2 * plane + o] = g
                    } else {
                        for c in 0..<3 { out[c * plane + o] = page.sample(px, py, 2 - c) / 127.5 - 1 }
                    }
                }
            }
        }
    }
}
