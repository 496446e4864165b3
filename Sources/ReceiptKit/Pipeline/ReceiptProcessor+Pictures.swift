import Foundation
import Synchronization

/// One picture of a receipt photographed in several (a long receipt: top, middle, bottom).
public struct ReceiptPicture: Sendable {
    public var data: Data
    /// The picture's file name, for errors and records.
    public var name: String

    public init(data: Data, name: String) {
        self.data = data
        self.name = name
    }
}

/// A picture's first readings, read now or kept from an earlier run (`receipts eval --ocr-cache`).
public struct PictureReading: Sendable {
    public var picture: ReceiptPicture
    /// Tesseract's first reading, or the neural reader's when it reads alone.
    public var ocr: OCRResult
    /// The neural reader's reading beside Tesseract's (`.both`), nil when it did not read.
    public var neural: OCRResult?
    /// How the picture was turned to be read (a picture stored sideways), nil when as stored.
    public var turn: PageTurn?

    public init(picture: ReceiptPicture, ocr: OCRResult, neural: OCRResult? = nil, turn: PageTurn? = nil) {
        self.picture = picture
        self.ocr = ocr
        self.neural = neural
        self.turn = turn
    }
}

/// A receipt of several pictures: each read by the readers on its own, the readings joined into
/// one (`PictureJoin`: the overlapping rows kept once, the header from the first picture and the
/// totals from the last), then analyzed as one receipt.
extension ReceiptProcessor {
    public func process(pictures: [ReceiptPicture], displayPath: String) async throws -> ProcessedReceipt {
        guard pictures.count > 1 else {
            guard let picture = pictures.first else { throw ReceiptError(.badImage, file: displayPath, "no picture to read") }
            return try await process(imageData: picture.data, displayPath: displayPath)
        }
        if let eReceipt = pictures.first(where: { EReceipt(data: $0.data) != nil }) {
            throw ReceiptError(.badImage, file: eReceipt.name, "an e-mail's body cannot be one picture of several")
        }
        let clock = ContinuousClock()
        let start = clock.now
        var readings: [PictureReading] = []
        var sessions: [OCRSession] = []
        // One picture after the other: each picture's two readers read side by side (firstReadings).
        for picture in pictures {
            let session = engine.session(imageData: picture.data, file: picture.name, maxPasses: maxPasses)
            let (ocr, neural) = try await firstReadings(session)
            readings.append(PictureReading(picture: picture, ocr: ocr, neural: neural, turn: session.pageTurn))
            sessions.append(session)
        }
        let ocrDone = clock.now
        var (analysis, ocr) = try await analyze(readings, sessions: sessions, displayPath: displayPath)
        let end = clock.now
        analysis.timings = ReceiptTimings(ocrMs: Int((ocrDone - start) / .milliseconds(1)), analysisMs: Int((end - ocrDone) / .milliseconds(1)),
                                          totalMs: Int((end - start) / .milliseconds(1)))
        ocr.text = ocr.lines.map(\.text).joined(separator: "\n")
        return ProcessedReceipt(ocr: ocr, analysis: analysis)
    }

    /// Analyzes pictures whose first readings were read earlier (e.g. kept in a cache): joined,
    /// then analyzed as one receipt; further passes read the pictures through new sessions whose
    /// first passes count as taken.
    public func analyze(pictures readings: [PictureReading], displayPath: String) async throws -> ReceiptAnalysis {
        var sessions: [OCRSession] = []
        for reading in readings {
            let session = engine.session(imageData: reading.picture.data, file: reading.picture.name, maxPasses: maxPasses)
            if let turn = reading.turn { try session.turnPage(turn) }
            if readers != .neural { session.countFirstPass() }
            sessions.append(session)
        }
        return try await analyze(readings, sessions: sessions, displayPath: displayPath).analysis
    }

    /// Joins the pictures' readings, analyzes them, and says in the analysis which picture each
    /// field's words are on (`sources`) and how the pictures were joined (`pictures`).
    private func analyze(_ readings: [PictureReading], sessions: [OCRSession],
                         displayPath: String) async throws -> (analysis: ReceiptAnalysis, ocr: OCRResult) {
        let join = PictureJoin.plan(readings.map { [$0.ocr] + ($0.neural.map { [$0] } ?? []) })
        guard let ocr = join.join(readings.map(\.ocr)) else {
            throw ReceiptError(.analysisFailed, file: displayPath, "the pictures' readings could not be joined")
        }
        let neural = readers == .both ? join.join(readings.map(\.neural)) : nil
        let reader = readers == .neural ? nil : JoinedPageReader(sessions: sessions, join: join, maxPasses: maxPasses)
        var input = AnalysisInput(source: displayPath, ocr: ocr, neural: neural, ocrIsNeural: readers == .neural,
                                  reader: reader, imageData: readings[0].picture.data)
        input.memory = memory
        var analysis = try await analyze(input)
        // Pictures of different receipts sent as one: flagged, naming why (issue 56).
        let reasons = PictureJoinReview.reasons(overlapRows: join.overlapRows, analysis: analysis)
        if !reasons.isEmpty { analysis.flag(analysis.review + reasons) }
        let turned = Set(readings.indices.filter { readings[$0].turn != nil })
        analysis.details.append(("pictures", .array(readings.enumerated().map { i, reading in
            var pairs: [(String, JSONValue)] = [("file", .string(reading.picture.name)),
                                                ("imageWidth", .int(reading.ocr.imageWidth)), ("imageHeight", .int(reading.ocr.imageHeight))]
            if i > 0 { pairs.append(("overlapRows", .int(join.overlapRows[i - 1]))) }
            if let turn = reading.turn { pairs.append(("pageTurn", .int(turn.rawValue))) }
            return .object(pairs)
        })))
        analysis.details.append(("sources", Self.pictureSources(FieldSources.locate(analysis, in: ocr), join: join, turned: turned)))
        return (analysis, ocr)
    }

    /// `sources` for a receipt of several pictures: each word's box in the pixels of the picture
    /// it is on, and that picture's number (from 1). Words on a picture read turned have no box
    /// to show (their boxes are the turned page's).
    static func pictureSources(_ sources: FieldSources, join: PictureJoin, turned: Set<Int>) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("imageWidth", .int(sources.imageWidth)), ("imageHeight", .int(sources.imageHeight))]
        pairs.append(("pictures", .array(join.placements.map { .object([("imageWidth", .int($0.width)), ("imageHeight", .int($0.height))]) })))
        for (field, words) in sources.fields {
            let placed: [JSONValue] = words.compactMap { word in
                guard let (picture, box) = join.locate(word.box), !turned.contains(picture) else { return nil }
                return .object([("text", .string(word.text)), ("picture", .int(picture + 1)),
                                ("box", .array([box.x, box.y, box.width, box.height].map { .int($0) }))])
            }
            if !placed.isEmpty { pairs.append((field, .array(placed))) }
        }
        return .object(pairs)
    }
}

/// Further passes over a receipt of several pictures, for the analyzer: a close-up of a few rows
/// reads the picture that holds them (its boxes brought to the joined reading's pixels); a whole
/// page reads every picture again and joins them as the first readings were joined.
final class JoinedPageReader: PageReader {
    let sessions: [OCRSession]
    let join: PictureJoin
    let maxPasses: Int
    private let taken: Mutex<Int>

    init(sessions: [OCRSession], join: PictureJoin, maxPasses: Int) {
        self.sessions = sessions
        self.join = join
        self.maxPasses = max(1, maxPasses)
        // The first readings' passes (a faint page read twice, dark bands): the most any picture took.
        taken = Mutex(sessions.map { $0.maxPasses - $0.passesLeft }.max() ?? 1)
    }

    var passesLeft: Int { taken.withLock { max(0, maxPasses - $0) } }
    var passesRead: Int { sessions.reduce(0) { $0 + $1.passesRead } }

    private func take() -> Bool {
        taken.withLock { t in
            guard t < maxPasses else { return false }
            t += 1
            return true
        }
    }

    func read(_ pass: OCRPass) async throws -> OCRResult? {
        guard take() else { return nil }
        if let region = pass.region {
            guard let (index, inPicture) = join.picture(holding: region) else { return nil }
            var own = pass
            own.region = inPicture
            guard let read = try await sessions[index].read(own) else { return nil }
            // The close-up's boxes are relative to its region, at the pass's scale: brought to the
            // joined region's origin and the joined reading's pixels.
            let p = join.placements[index]
            let offsetX = (p.scale * Double(inPicture.x) + p.dx - Double(region.x)) * pass.scale
            let offsetY = (p.scale * Double(inPicture.y) + p.dy - Double(region.y)) * pass.scale
            return read.placed(scale: p.scale, dx: offsetX, dy: offsetY)
        }
        var readings: [OCRResult?] = []
        for session in sessions { readings.append(try await session.read(pass)) }
        return join.join(readings)
    }

    func dictionaryWords(among words: [String]) async throws -> Set<String> {
        try await sessions[0].dictionaryWords(among: words)
    }
}

extension OCRResult {
    /// The reading with every box scaled by `scale` and then moved by `(dx, dy)`.
    func placed(scale: Double, dx: Double, dy: Double) -> OCRResult {
        let placement = PictureJoin.Placement(scale: scale, dx: dx, dy: dy, width: imageWidth, height: imageHeight)
        let lines = self.lines.map { line in
            OCRLine(words: line.words.map { OCRWord(text: $0.text, confidence: $0.confidence, box: placement.joined($0.box)) })
        }
        return OCRResult(text: text, lines: lines.filter { !$0.words.isEmpty }, meanConfidence: meanConfidence,
                         imageWidth: Int((scale * Double(imageWidth)).rounded()), imageHeight: Int((scale * Double(imageHeight)).rounded()),
                         sourceWidth: sourceWidth, sourceHeight: sourceHeight)
    }
}
