import Foundation
import ReceiptModel

extension OCRSession {
    /// The neural reader's reading of this receipt: the whole page (`pass` nil), or a close-up of
    /// some rows (`pass.region`, in the first reading's pixels) at `pass.scale`.
    ///
    /// Reuses the session's decoded image (decoded once for every reading, Tesseract's and this
    /// one's) and runs on the OCR engine's threads, never on Swift's cooperative pool. Boxes are in
    /// the same pixels as Tesseract's first reading (`imageWidth/Height` is that image's size), so
    /// both readings can be related word by word; a close-up's boxes are mapped back into them.
    /// `pass.pageSegmentationMode` and `pass.binarize` are Tesseract's and are not used.
    ///
    /// Neural readings count toward no budget: Tesseract's passes (`passesLeft`) are untouched, and
    /// `neuralReadingsTaken` only counts them. (An analyzer asks for at most a page and a few rows,
    /// and a close-up costs a fraction of a page.)
    /// - Throws: `ReceiptError` — `.neuralReaderNotInstalled` when the engine has no networks, the
    ///   image's own errors (`.badImage`, …) as the first reading would.
    public func neuralReading(_ pass: OCRPass? = nil) async throws -> OCRResult {
        try await neuralReadingTimed(pass).result
    }

    /// `PageReader`'s neural reading: `neuralReading(pass)`, nil when this engine has no networks
    /// or the reading failed.
    public func neuralRead(_ pass: OCRPass?) async throws -> OCRResult? {
        guard engine.neural != nil else { return nil }
        do {
            return try await neuralReading(pass)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
    }

    /// Neural readings taken so far.
    public var neuralReadingsTaken: Int { neuralReadings.withLock { $0 } }

    /// The neural reader's reading of the whole page turned by `turn`, in the turned page's pixels,
    /// without turning the session's page (`turnPage` does that): to try how a page stored
    /// sideways or upside down reads.
    public func neuralReading(turned turn: PageTurn) async throws -> OCRResult {
        try await neuralReadingTimed(nil, turned: turn).result
    }

    /// `neuralReading` and the time its stages took (for benchmarks).
    package func neuralReadingTimed(_ pass: OCRPass? = nil, turned turn: PageTurn? = nil) async throws -> (result: OCRResult, timing: NeuralReader.Timing) {
        guard let models = engine.neural else {
            throw ReceiptError(.neuralReaderNotInstalled, file: file,
                               "neural reader not installed: run `make neural` (this OCR engine was made without its networks)")
        }
        let (loader, reader) = (self.loader, NeuralReader(models: models))
        let reading = try await engine.onOCRWorker { [self] worker in
            // Decoded and prepared with the pass lock held; read without it (beside Tesseract's pass).
            let (page, image, full) = try passLock.withLock { () throws -> (ImageLoader.Loaded, LeptonicaImage, (width: Int, height: Int)) in
                let page = try decodedPage(loader)
                if let turn {
                    // A trial: the page turned, measured in its own pixels; the session's page is untouched.
                    let image = loader.prepare(ImageLoader.turned(page.image, turn), pass: nil)
                    return (page, image, (image.width, image.height))
                }
                let image = loader.prepare(page.image, pass: pass.map { OCRPass(scale: $0.scale, region: $0.region) })
                if pass == nil, decoded.firstPassSize == nil { decoded.firstPassSize = (image.width, image.height) }
                let full = decoded.firstPassSize ?? {
                    let first = loader.prepare(page.image, pass: nil)
                    decoded.firstPassSize = (first.width, first.height)
                    return (first.width, first.height)
                }()
                return (page, image, full)
            }
            let requests = try worker.neuralRequests(models)
            var (lines, timing) = try reader.read(image, requests: requests)
            if let region = pass?.region {
                lines = Self.mapped(lines, from: (image.width, image.height), into: region, full: full)
            } else if (image.width, image.height) != full {
                // A whole page read at another scale: its boxes scaled to the first reading's.
                lines = Self.mapped(lines, from: (image.width, image.height),
                                    into: BoundingBox(x: 0, y: 0, width: full.width, height: full.height), full: full)
            }
            let result = OCRResult(text: lines.map(\.text).joined(separator: "\n") + (lines.isEmpty ? "" : "\n"),
                                   lines: lines, meanConfidence: OCRResult.meanConfidence(of: lines),
                                   imageWidth: full.width, imageHeight: full.height,
                                   sourceWidth: page.sourceWidth, sourceHeight: page.sourceHeight)
            return (result, timing)
        }
        neuralReadings.withLock { $0 += 1 }
        return reading
    }

    /// Boxes read in an image of `size` that shows `region` of the first reading's image, moved
    /// into that image's pixels (and kept within its `full` size).
    static func mapped(_ lines: [OCRLine], from size: (width: Int, height: Int), into region: BoundingBox,
                       full: (width: Int, height: Int)) -> [OCRLine] {
        let sx = Double(region.width) / Double(max(1, size.width)), sy = Double(region.height) / Double(max(1, size.height))
        return lines.map { line in
            OCRLine(words: line.words.map { word in
                let x0 = min(full.width, region.x + Int((Double(word.box.x) * sx).rounded(.down)))
                let y0 = min(full.height, region.y + Int((Double(word.box.y) * sy).rounded(.down)))
                let x1 = min(full.width, region.x + Int((Double(word.box.maxX) * sx).rounded(.up)))
                let y1 = min(full.height, region.y + Int((Double(word.box.maxY) * sy).rounded(.up)))
                return OCRWord(text: word.text, confidence: word.confidence,
                               box: BoundingBox(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0)))
            })
        }
    }
}
