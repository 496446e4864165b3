import Foundation
import ReceiptModel

/// Finds text boxes on a page with a DB (Differentiable Binarization) detection model.
///
/// The page is resized (bilinear) so its short side is at least `minimumSide` and its long side at
/// most `maximumSide`, each side then rounded to a multiple of 32 (the network's stride); it is
/// normalized per channel in BGR order, run through the network, and the probability map it gives
/// is turned into boxes by `DBPostProcess`, scaled back to the page's pixels.
package struct TextDetector: Sendable {
    package var postProcess: DBPostProcess
    package var normalization: NeuralModelSet.Normalization
    package var minimumSide: Int
    package var maximumSide: Int
    package var maximumPixels: Int

    package init(configuration: NeuralConfiguration) {
        postProcess = DBPostProcess(configuration.modelSet)
        normalization = configuration.modelSet.detectorNormalization
        minimumSide = configuration.detectorMinimumSide
        maximumSide = configuration.detectorMaximumSide
        maximumPixels = configuration.detectorMaximumPixels
    }

    /// The network's input size for a page of `width × height`.
    package func inputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        var ratio = 1.0
        let short = Double(min(width, height)), long = Double(max(width, height))
        if short < Double(minimumSide) { ratio = Double(minimumSide) / short }
        if long * ratio > Double(maximumSide) { ratio = Double(maximumSide) / long }
        let budget = Double(maximumPixels)
        if short * long * ratio * ratio > budget { ratio = (budget / (short * long)).squareRoot() }
        func rounded(_ side: Int) -> Int { max(32, Int((Double(side) * ratio / 32).rounded()) * 32) }
        return (rounded(width), rounded(height))
    }

    /// The network's input size for a page of `width × height` scaled by `ratio` (each side a
    /// multiple of 32).
    package func inputSize(width: Int, height: Int, ratio: Double) -> (width: Int, height: Int) {
        func rounded(_ side: Int) -> Int { max(32, Int((Double(side) * ratio / 32).rounded()) * 32) }
        return (rounded(width), rounded(height))
    }

    /// The page's text boxes, in its pixels; `ratio`: the scale to read it at (default: the one
    /// `inputSize(width:height:)` gives it).
    func detect(_ page: Raster, request: InferRequest, ratio: Double? = nil) throws -> [TextBox] {
        let (w, h) = ratio.map { inputSize(width: page.width, height: page.height, ratio: $0) } ?? inputSize(width: page.width, height: page.height)
        let input = tensor(page, width: w, height: h)
        let output = try request.infer(input, shape: [1, 3, h, w])
        guard output.shape.count == 4, output.shape[2] == h, output.shape[3] == w else {
            throw ReceiptError(.ocrFailed, "the detection model answered a map of shape \(output.shape) for an input of \(w)×\(h)")
        }
        let map = ProbabilityMap(width: w, height: h, values: Array(output.values.prefix(w * h)))
        let (sx, sy) = (Double(page.width) / Double(w), Double(page.height) / Double(h))
        return postProcess.boxes(in: map).map { $0.scaled(sx, sy) }
    }

    /// The page resized to `width × height`, channels first in BGR order, normalized.
    func tensor(_ page: Raster, width: Int, height: Int) -> [Float] {
        var input = [Float](repeating: 0, count: 3 * width * height)
        let (sx, sy) = (Double(page.width) / Double(width), Double(page.height) / Double(height))
        let plane = width * height
        // BGR: the model's channel 0 is blue (the raster's channel 2).
        let scale = (0..<3).map { 1 / (255 * normalization.std[$0]) }
        let offset = (0..<3).map { normalization.mean[$0] / normalization.std[$0] }
        input.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let py = (Double(y) + 0.5) * sy
                for x in 0..<width {
                    let px = (Double(x) + 0.5) * sx
                    let o = y * width + x
                    if page.channels == 1 {
                        let g = page.sample(px, py, 0)
                        for c in 0..<3 { out[c * plane + o] = g * scale[c] - offset[c] }
                    } else {
                        for c in 0..<3 { out[c * plane + o] = page.sample(px, py, 2 - c) * scale[c] - offset[c] }
                    }
                }
            }
        }
        return input
    }
}
