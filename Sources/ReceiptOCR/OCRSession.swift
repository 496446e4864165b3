import Foundation
import ReceiptModel
import Synchronization

/// The OCR of one receipt: its image decoded once, then as many passes as the receipt's budget
/// allows, each prepared from the decoded image (a whole page at another scale, a close-up of a
/// few rows, a binarized page). Analyzers see it as a `PageReader`. The neural reader reads the same
/// decoded image, in the same pixels (`neuralReading`, in OCRSession+Neural.swift).
///
/// Decoding once instead of once a pass saves a JPEG decode, the EXIF rotation and the page-scan
/// crop on every further pass (up to four a receipt). The decoded image is kept until the session
/// is released, after the receipt's analysis.
public final class OCRSession: PageReader {
    /// OCR passes per receipt by default: the first, and up to four the analyzer asks for (at most
    /// two further whole pages; the rest are close-ups of a few rows, a quarter of a page's cost).
    /// Measured on ../shared/receipts: 4 against 3, SROIE dates 92% → 93% (a fourth pass on a
    /// tenth of the receipts); 5 against 4, the vendor close-up no longer loses to the date's
    /// (10 more close-ups on 210 receipts, WildReceipt vendors 50.9% → 51.8%).
    public static let defaultMaxPasses = 5

    public let file: String
    public let maxPasses: Int
    let engine: OCREngine
    let imageData: Data
    private let state: Mutex<(taken: Int, read: Int, decoded: Int, textLayer: Bool, turn: PageTurn?)>
    /// Held while a pass decodes the image (the first) and prepares its own copy of it; `decoded` is
    /// touched only with it held. The reading itself runs without it, so Tesseract's first pass and
    /// the neural reader's can read one receipt side by side on two OCR threads.
    let passLock = NSLock()
    /// The decoded image, made by the first pass that needs it.
    let decoded = DecodedPage()
    /// Neural readings taken (they count toward no budget, see `neuralReading`).
    let neuralReadings = Mutex(0)

    /// Prefer `OCREngine.session(imageData:file:maxPasses:)`.
    init(engine: OCREngine, imageData: Data, file: String, maxPasses: Int) {
        self.engine = engine
        self.imageData = imageData
        self.file = file
        self.maxPasses = max(1, maxPasses)
        self.state = Mutex((0, 0, 0, false, nil))
    }

    public var passesLeft: Int { state.withLock { maxPasses - $0.taken } }
    /// How often the image bytes were decoded (1 once any pass was read).
    package var timesDecoded: Int { state.withLock { $0.decoded } }
    public var passesRead: Int { state.withLock { $0.read } }

    /// The first pass, with the engine's settings. Throws `ReceiptError` naming the file when the
    /// image cannot be decoded or read (not an image, truncated, too large, …).
    ///
    /// A page read as almost nothing (fewer than `faintPageWords` words) is read again at once with
    /// its contrast stretched, when the budget has a pass left, and the reading with more words is
    /// the first reading: faint print (light dot-matrix, a pale thermal slip) that Tesseract's
    /// page-wide threshold turns white.
    ///
    /// A PDF with a text layer is not read by OCR at all: its words and their boxes are the first
    /// reading (exact, confidence 100), and there are no further passes (`read` answers nil).
    public func firstReading() async throws -> OCRResult {
        if let text = try await textLayerReading() { return text }
        _ = takePass()
        let first = try await recognize(nil, readDarkBands: true)
        guard first.wordCount < Self.faintPageWords, takePass() else { return first }
        guard let again = try? await recognize(nil, stretchContrast: true) else { return first }
        return again.wordCount > first.wordCount ? again : first
    }

    /// Fewer words than this on a first reading mean the page's print was lost, not that the
    /// receipt is short: of the 759 labelled receipts, the 15 first readings under 25 words were all
    /// faint or blurred pages, which another threshold read 24–249 words of.
    public static let faintPageWords = 20

    /// Counts a first pass read elsewhere (an OCR result kept from an earlier run).
    public func countFirstPass() {
        _ = takePass()
        state.withLock { $0.read += 1 }
    }

    public func read(_ pass: OCRPass) async throws -> OCRResult? {
        guard !state.withLock({ $0.textLayer }), takePass() else { return nil }
        do {
            return try await recognize(pass)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // A further pass that fails (it cannot, short of the engine stopping) leaves the
            // analysis with the readings it has.
            return nil
        }
    }

    public func dictionaryWords(among words: [String]) async throws -> Set<String> {
        try await engine.dictionaryWords(among: words)
    }

    /// A PDF's text layer as the first reading (no OCR), or nil for an image or a scanned PDF.
    public func textLayerReading() async throws -> OCRResult? {
        guard ImageFormat.sniff(imageData) == .pdf, let text = try await pdfTextLayer() else { return nil }
        state.withLock { $0.textLayer = true }
        return text
    }

    /// Whether the bytes are a PDF's (which may have a text layer to read instead of OCR).
    public var isPDF: Bool { ImageFormat.sniff(imageData) == .pdf }

    /// Whether the first reading came from a PDF's text layer (no OCR).
    public var readFromTextLayer: Bool { state.withLock { $0.textLayer } }

    /// The text layer of a PDF, or nil when it has none (a scan: rendered and read by OCR).
    private func pdfTextLayer() async throws -> OCRResult? {
        let (data, file, maxPages) = (imageData, self.file, engine.configuration.maxPDFPages)
        return try await engine.onOCRThread { _ in
            guard let text = try PDFReader(data, file: file, maxPages: maxPages).textLayer() else { return nil }
            guard text.text.contains(where: \.isNumber) else {
                throw ReceiptError(.noText, file: file, "not a receipt: the PDF's text has no amounts or dates")
            }
            return text
        }
    }

    private func takePass() -> Bool {
        state.withLock { s in
            guard s.taken < maxPasses else { return false }
            s.taken += 1
            return true
        }
    }

    /// - Parameter readDarkBands: read the page's bands of white-on-dark print again, inverted, and
    ///   keep what they say in their place (`DarkBands`); each band is a pass of the budget.
    private func recognize(_ pass: OCRPass?, stretchContrast: Bool = false, readDarkBands: Bool = false) async throws -> OCRResult {
        let configuration = engine.configuration
        let psm = pass?.pageSegmentationMode ?? configuration.pageSegmentationMode
        let loader = self.loader
        let result = try await engine.onOCRThread { [self] handle in
            let (page, prepared) = try passLock.withLock {
                let page = try decodedPage(loader)
                let image = loader.prepare(page.image, pass: pass)
                if pass == nil { decoded.firstPassSize = (image.width, image.height) }
                return (page, image)
            }
            var image = prepared
            if stretchContrast, let stretched = ImageLoader.stretchContrast(image) { image = stretched }
            let read = handle.recognize(image, pageSegmentationMode: psm)
            var result = OCRResult(text: read.text, lines: read.lines, meanConfidence: read.meanConfidence,
                                   imageWidth: image.width, imageHeight: image.height,
                                   sourceWidth: page.sourceWidth, sourceHeight: page.sourceHeight)
            // No pass left (`--ocr-passes 1`): no band could be read, so none is looked for.
            guard readDarkBands, passesLeft > 0 else { return result }
            for band in DarkBands.find(in: image) {
                guard takePass(), let inverted = DarkBands.inverted(band, of: image) else { break }
                let lines = handle.recognize(inverted, pageSegmentationMode: psm).lines.map { line in
                    OCRLine(words: line.words.map { w in
                        OCRWord(text: w.text, confidence: w.confidence,
                                box: BoundingBox(x: w.box.x + band.x, y: w.box.y + band.y, width: w.box.width, height: w.box.height))
                    })
                }
                state.withLock { $0.read += 1 }
                result = DarkBands.merge(result, band: band, read: lines)
            }
            return result
        }
        state.withLock { $0.read += 1 }
        return result
    }

    /// Turns the page for every reading from now on (a page stored sideways or upside down with no
    /// EXIF orientation to say so): the next `firstReading` reads it as turned, and every box is
    /// in the turned page's pixels. Readings taken before stay as they were.
    public func turnPage(_ turn: PageTurn) throws {
        let loader = self.loader
        try passLock.withLock {
            let page = try decodedPage(loader)
            let quarter = turn != .half
            decoded.loaded = ImageLoader.Loaded(image: ImageLoader.turned(page.image, turn),
                                                sourceWidth: quarter ? page.sourceHeight : page.sourceWidth,
                                                sourceHeight: quarter ? page.sourceWidth : page.sourceHeight)
            decoded.firstPassSize = nil
        }
        state.withLock { $0.turn = turn }
    }

    /// How the page was turned (`turnPage`), nil when it is read as stored.
    public var pageTurn: PageTurn? { state.withLock { $0.turn } }

    /// The image loader the engine's configuration asks for.
    var loader: ImageLoader {
        let configuration = engine.configuration
        var loader = ImageLoader(maxPixels: configuration.maxPixels, preprocessing: configuration.preprocessing)
        loader.maxPDFPages = configuration.maxPDFPages
        return loader
    }

    /// The decoded image, decoded now if no pass has yet. Call on an OCR thread with `passLock` held.
    func decodedPage(_ loader: ImageLoader) throws -> ImageLoader.Loaded {
        if decoded.loaded == nil {
            decoded.loaded = try loader.decode(imageData, file: file)
            state.withLock { $0.decoded += 1 }
        }
        guard let page = decoded.loaded else { throw ReceiptError(.badImage, file: file, "cannot decode image") }
        return page
    }
}

/// A turn of a page stored sideways or upside down, clockwise.
public enum PageTurn: Int, Sendable {
    case right = 90
    case half = 180
    case left = 270
}

/// A decoded image held by a session between passes.
///
/// `@unchecked Sendable`: its properties are read and written only by the session's passes
/// (`recognize`, `neuralReading`), inside their OCR jobs with the session's `passLock` held; the
/// image a pass reads after releasing it is only read (Tesseract reads a copy of its own).
final class DecodedPage: @unchecked Sendable {
    var loaded: ImageLoader.Loaded?
    /// The size of the first pass's image (what every reading's boxes are measured in), once known.
    var firstPassSize: (width: Int, height: Int)?
}
