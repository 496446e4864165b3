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
    /// Crops narrower than `minimumWidth` read side by side in one input row (see `rows`), rather
    /// than each padded to `minimumWidth` on its own.
    package var packing: Bool
    /// Pixels of padding between two crops sharing a row (a multiple of 8, the columns' width).
    package var packingGap: Int

    package init(classes: [String], configuration: NeuralConfiguration) {
        self.classes = classes
        height = configuration.modelSet.recognizerHeight
        minimumWidth = configuration.recognizerMinimumWidth
        batchSize = max(1, configuration.batchSize)
        batchWidth = configuration.recognizerBatchWidth
        maximumWidth = height * 40
        packing = configuration.recognizerPacking
        packingGap = max(0, configuration.recognizerPackingGap / 8 * 8)
    }

    /// The crop width of a box: its aspect ratio at the model's height, in multiples of 8.
    package func cropWidth(of box: TextBox) -> Int {
        let ratio = box.width / max(box.height, 1)
        return min(maximumWidth, max(8, Int((Double(height) * ratio / 8).rounded(.up)) * 8))
    }

    /// A row of the recognizer's input: one crop, or short crops side by side (`packing`).
    package struct InputRow: Sendable, Equatable {
        /// The crops (indices into the boxes) and where each begins along the row, in pixels.
        package var crops: [(index: Int, offset: Int)]
        /// Up to the end of its last crop.
        package var width: Int

        package static func == (a: InputRow, b: InputRow) -> Bool {
            a.width == b.width && a.crops.map(\.index) == b.crops.map(\.index) && a.crops.map(\.offset) == b.crops.map(\.offset)
        }
    }

    /// The input rows for crops of `widths`: without `packing`, one crop a row; with it, crops
    /// narrower than `minimumWidth` share rows (widest first, each in the first row it fits into,
    /// `packingGap` pixels after the one before it), so that a row is no wider than `minimumWidth`
    /// — the width every row is padded to anyway.
    package func rows(_ widths: [Int]) -> [InputRow] {
        guard packing else { return widths.indices.map { InputRow(crops: [($0, 0)], width: widths[$0]) } }
        var rows: [InputRow] = []
        var short: [Int] = []
        for index in widths.indices {
            if widths[index] < minimumWidth { short.append(index) } else { rows.append(InputRow(crops: [(index, 0)], width: widths[index])) }
        }
        var packed: [InputRow] = []
        for index in short.sorted(by: { widths[$0] > widths[$1] || (widths[$0] == widths[$1] && $0 < $1) }) {
            if let row = packed.firstIndex(where: { $0.width + packingGap + widths[index] <= minimumWidth }) {
                let offset = packed[row].width + packingGap
                packed[row].crops.append((index, offset))
                packed[row].width = offset + widths[index]
            } else {
                packed.append(InputRow(crops: [(index, 0)], width: widths[index]))
            }
        }
        return rows + packed
    }

    /// The text of every box, in the order of `boxes`.
    func recognize(_ boxes: [TextBox], in page: Raster, request: InferRequest) throws -> [RecognizedText] {
        let widths = boxes.map(cropWidth)
        let rows = rows(widths)
        var results = [RecognizedText?](repeating: nil, count: boxes.count)
        for batch in batches(rows.map(\.width)) {
            let batchWidth = max(minimumWidth, batch.map { rows[$0].width }.max()!)
            var input = [Float](repeating: 0, count: batch.count * 3 * height * batchWidth)
            for (slot, row) in batch.enumerated() {
                for (index, offset) in rows[row].crops {
                    crop(boxes[index], from: page, width: widths[index], into: &input,
                         at: slot * 3 * height * batchWidth + offset, stride: batchWidth)
                }
            }
            let output = try request.infer(input, shape: [batch.count, 3, height, batchWidth])
            // Every class's probability (a recognizer as published), or each column's best class
            // (`rec-top.onnx`, post-processed by `make neural`: three values a column).
            guard output.shape.count == 3, output.shape[0] == batch.count, output.shape[2] == classes.count || output.shape[2] == 3 else {
                throw ReceiptError(.ocrFailed, "the recognition model answered shape \(output.shape); its character list has \(classes.count) classes")
            }
            let (columns, perColumn) = (output.shape[1], output.shape[2])
            let columnWidth = Double(batchWidth) / Double(columns)
            for (slot, row) in batch.enumerated() {
                for (index, offset) in rows[row].crops {
                    // The crop's own columns: from its offset (a multiple of the column's width) to
                    // its end; the padding and gaps after it are not read.
                    let first = min(columns, Int((Double(offset) / columnWidth).rounded(.down)))
                    let valid = min(columns - first, Int((Double(widths[index]) / columnWidth).rounded(.up)))
                    let start = (slot * columns + first) * perColumn
                    let slice = UnsafeBufferPointer(rebasing: output.values[start..<(start + valid * perColumn)])
                    let characters = perColumn == classes.count
                        ? CTCDecoder.decode(slice, columns: valid, classes: classes)
                        : CTCDecoder.decode(top: slice, columns: valid, classes: classes)
                    results[index] = RecognizedText(box: boxes[index], characters: characters, columnWidth: columnWidth,
                                                    cropWidth: Double(widths[index]))
                }
            }
        }
        return results.map { $0! }
    }

    /// What reading `boxes` costs the network: the sum of their crops' widths, and of the widths it
    /// is given (every batch's rows times its padded width). The network's time grows with the latter.
    package func inputWidths(of boxes: [TextBox]) -> (crops: Int, padded: Int) {
        let widths = boxes.map(cropWidth)
        let rowWidths = rows(widths).map(\.width)
        let padded = batches(rowWidths).reduce(0) { $0 + $1.count * max(minimumWidth, $1.map { rowWidths[$0] }.max() ?? 0) }
        return (widths.reduce(0, +), padded)
    }

    /// The rows (indices into `widths`, their widths) read together: sorted by width, at most
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
