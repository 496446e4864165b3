import ArgumentParser
import Foundation
import Logging
import ReceiptKit
import ReceiptEvaluation

struct EvalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Measure field accuracy on folders of labelled receipts.",
        discussion: """
            Each DIR holds images, each beside its ground truth: a same-name .json (the format of \
            ../shared/receipts) or <name>.expected.json (TestReceipts). Every image goes through OCR and \
            the analyzer (no store is used) and each field is scored where the truth is not null: vendor \
            ignoring case, spaces and punctuation; amounts as decimals; dates exactly; currency; category.

            Prints one line per folder with per-field accuracy; --misses lists every wrong field (file, \
            expected, got); --format json prints the report for machines.

            --ocr-cache DIR keeps each image's first OCR pass as <name>.tsv in DIR (under a folder \
            named for the version of the first pass, so a kept cache is never taken for another \
            reading) and reuses it on the next run (analyzer work then runs in seconds; second \
            passes still read the image).

            --corrections measures on a store instead (--store): of the receipts a person confirmed, \
            how often each field kept the value the analyzer drafted (a corrected field is in the \
            expense's corrections). It needs no labelled folder.

            --cuts 0-62,38-100 also reads each receipt cut into overlapping pictures — here its top \
            (0–62 % of its height) and its bottom (38–100 %), made from the photo in memory, nothing \
            written — as one receipt of several pictures, as a person photographs a long receipt, and \
            prints per folder each field's figure for the whole photos beside the pictures' (with \
            --ocr-cache, each cut's readings are kept too).

            --replay reads each folder in order as one person who confirms each receipt with its \
            truth, in a store of its own, so that the memory of shops learns as it does from people; \
            each receipt is read with that memory and without it, and every field is scored on \
            receipts from shops confirmed earlier (repeat) and on those seen first. --rename SUFFIX \
            confirms each shop as "<printed name> SUFFIX", a naming no reading can produce, and has a \
            second person replay the folder under the printed names (none of the first's naming may \
            show on the second's receipts). --second-pictures N photographs the first N receipts of \
            each folder again (cropped 3 %, turned 2°) and counts those caught as possibleDuplicateOf.

            --time-analyzer then times the heuristic analyzer alone on each receipt's first-pass OCR \
            result (in memory, no second passes, 5 rounds) and prints the median, p95 and mean per receipt.
            """)

    @Argument(help: "Folders of labelled receipts.")
    var folders: [String] = []

    @Flag(help: "Measure on the store's confirmed receipts instead: per field, how often the drafted value was kept.")
    var corrections = false

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "List every wrong field: file, field, expected, got.")
    var misses = false

    @Option(help: "Output: text or json.")
    var format: ReportFormat = .text

    @Option(help: ArgumentHelp("Folder to keep first-pass OCR results in, for fast re-runs.", valueName: "DIR"))
    var ocrCache: String?

    @Option(help: ArgumentHelp("Also read each receipt cut into these bands of its height (percent, top to bottom) as one receipt of several pictures, and print both figures side by side.", valueName: "FROM-TO,FROM-TO…"))
    var cuts: String?

    @Flag(help: "Also time the heuristic analyzer alone on the first-pass OCR results (median, p95, mean per receipt).")
    var timeAnalyzer = false

    @Option(help: ArgumentHelp("Write every receipt's candidates (field, value, features, right or not) as NDJSON, for make train.", valueName: "FILE"))
    var dumpCandidates: String?

    @Flag(help: "Keep the rules' own picks and confidences (no learned model), for comparison.")
    var rulesOnly = false

    @Flag(help: "Replay each folder in order as one person confirming each receipt with its truth, memory of shops on and off (see above).")
    var replay = false

    @Option(help: ArgumentHelp("With --replay: confirm each shop as \"<printed name> SUFFIX\" (e.g. \"(mine)\").", valueName: "SUFFIX"))
    var rename: String?

    @Option(help: ArgumentHelp("With --replay: photograph the first N receipts of each folder again and count those caught as duplicates.", valueName: "N"))
    var secondPictures = 0

    @Flag(help: "Also print, per folder, how often receipts not flagged for review have the right total and date, and a reliability table of the total, date and vendor confidences.")
    var reliability = false

    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try pipeline.requireWorkers()
        if folders.isEmpty && !corrections { throw ValidationError("give folders of labelled receipts, or --corrections to measure on the store") }
        if !folders.isEmpty && corrections { throw ValidationError("--corrections measures the store: give no folders with it") }
        if let cuts { _ = try Self.bands(cuts) }
        if replay && (cuts != nil || corrections || timeAnalyzer || format == .json) {
            throw ValidationError("--replay prints its own tables: give it without --cuts, --corrections, --time-analyzer or --format json")
        }
        if !replay && (rename != nil || secondPictures > 0) { throw ValidationError("--rename and --second-pictures go with --replay") }
        if let rename, rename.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--rename needs a suffix such as \"(mine)\"") }
        if secondPictures < 0 { throw ValidationError("--second-pictures must be 0 or more") }
    }

    /// `0-62,38-100` → [(0, 0.62), (0.38, 1)]: at least two bands, each within 0–100 and not empty,
    /// each starting below where the one before ends (so consecutive pictures overlap or touch).
    static func bands(_ text: String) throws -> [(from: Double, to: Double)] {
        var bands: [(from: Double, to: Double)] = []
        for part in text.split(separator: ",") {
            let ends = part.split(separator: "-").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard ends.count == 2, let from = ends[0], let to = ends[1], from >= 0, to <= 100, to > from else {
                throw ValidationError("--cuts: '\(part)' is not a band FROM-TO in percent of the height (e.g. 0-62,38-100)")
            }
            if let last = bands.last, from / 100 > last.to || from / 100 <= last.from {
                throw ValidationError("--cuts: each band must start after the one before starts and no lower than it ends (got '\(text)')")
            }
            bands.append((from / 100, to / 100))
        }
        guard bands.count >= 2 else { throw ValidationError("--cuts: give two bands or more (e.g. 0-62,38-100)") }
        return bands
    }

    enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func run() async throws {
        let logger = logging.bootstrap()
        if corrections {
            let measure = try await CorrectionMeasure.measure(try await storeOptions.openStore().scoped(to: .administrator()))
            print(format == .json ? measure.json.prettySerialized() : measure.text, terminator: format == .json ? "\n" : "")
            return
        }
        var sets: [(String, [LabelledReceipt])] = []
        for folder in folders {
            do {
                sets.append((folder, try LabelledFolder.load(URL(fileURLWithPath: folder))))
            } catch {
                printError(error)
                throw ExitCode(2)
            }
        }
        var processor = try pipeline.makeProcessor(logger: logger)
        if rulesOnly || dumpCandidates != nil, var rules = processor.analyzer as? HeuristicAnalyzer {
            if rulesOnly { rules.models = nil }
            rules.proposesCandidates = dumpCandidates != nil
            processor = ReceiptProcessor(engine: processor.engine, analyzer: rules, options: processor.options,
                                         maxPasses: processor.maxPasses, readers: processor.readers, logger: logger)
        }
        if replay {
            try await processor.engine.withRunning { _ in try await self.replay(sets, with: processor, logger: logger) }
            return
        }
        try await processor.engine.withRunning { _ in try await evaluate(sets, with: processor, logger: logger) }
    }

    private func evaluate(_ sets: [(String, [LabelledReceipt])], with processor: ReceiptProcessor, logger: Logger) async throws {
        if let ocrCache { try FileManager.default.createDirectory(atPath: ocrCache, withIntermediateDirectories: true) }

        var reports: [FolderReport] = []
        var identities: [IdentityScore] = []
        var cutReports: [FolderReport] = []
        // Of the cut readings, how many are flagged as pictures of different receipts (issue 56):
        // every one is a receipt's own pictures, so each is a false alarm.
        var cutReasons: [String: Int] = [:], cutRead = 0
        let bands = try cuts.map(Self.bands)
        var firstPasses: [OCRResult] = []
        var dump = CandidateDump.header(readers: processor.readers) + "\n"
        var calibration = ReliabilityTable()

        let started = Date()
        var count = 0
        for (folder, receipts) in sets {
            var scorer = EvaluationScorer(folder: (folder as NSString).lastPathComponent.isEmpty ? folder : folder)
            var cutScorer = EvaluationScorer(folder: folder)
            var identity = IdentityScore()
            let progress = ProgressBar(total: receipts.count)
            let cacheDir = ocrCache.map { "\($0)/\(Self.cacheKey(folder))" }
            if let cacheDir { try? FileManager.default.createDirectory(atPath: cacheDir, withIntermediateDirectories: true) }
            await withTaskGroup(of: (LabelledReceipt, ReceiptAnalysis?, OCRResult?, String?, CutOutcome?).self) { group in
                var next = 0
                func startNext() {
                    guard next < receipts.count else { return }
                    let receipt = receipts[next]
                    next += 1
                    group.addTask {
                        var cut: CutOutcome?
                        if let bands { cut = await Self.analyzeCut(receipt, bands: bands, processor: processor, cacheDir: cacheDir) }
                        do {
                            let (analysis, ocr) = try await Self.analyze(receipt, processor: processor, cacheDir: cacheDir)
                            return (receipt, analysis, ocr, nil, cut)
                        } catch {
                            return (receipt, nil, nil, "\(ErrorAdvice.flags.apply(to: error))", cut)
                        }
                    }
                }
                for _ in 0..<pipeline.workers * 2 { startNext() }
                for await (receipt, analysis, ocr, error, cut) in group {
                    scorer.add(file: receipt.name, truth: receipt.truth, analysis: analysis, error: error)
                    identity.add(file: receipt.name, truth: receipt.truth, analysis: analysis)
                    if let cut {
                        cutScorer.add(file: receipt.name, truth: receipt.truth, analysis: cut.analysis, error: cut.error)
                        if let review = cut.analysis?.review {
                            cutRead += 1
                            for reason in ReceiptAnalysis.reviewReasons where review.contains(reason) { cutReasons[reason, default: 0] += 1 }
                        }
                    }
                    calibration.add(folder: folder, truth: receipt.truth, analysis: analysis)
                    if dumpCandidates != nil, let analysis {
                        dump += CandidateDump.line(set: (folder as NSString).lastPathComponent, receipt: receipt, analysis: analysis) + "\n"
                    }
                    if timeAnalyzer, let ocr { firstPasses.append(ocr) }
                    progress.advance(failed: analysis == nil)
                    startNext()
                }
            }
            progress.finish()
            count += receipts.count
            reports.append(scorer.report)
            identities.append(identity)
            cutReports.append(cutScorer.report)
        }
        let elapsed = Date().timeIntervalSince(started)
        if let dumpCandidates {
            do { try dump.write(toFile: dumpCandidates, atomically: true, encoding: .utf8) } catch {
                printError("\(dumpCandidates): cannot write the candidates (\(error.localizedDescription))")
                throw ExitCode(1)
            }
        }

        switch format {
        case .json:
            var json = EvaluationReport(folders: reports).json(includeMisses: misses)
            if let bands, case var .object(pairs) = json {
                pairs.append(("cuts", .object([
                    ("bands", .array(bands.map { .array([.number(Self.percent($0.from)), .number(Self.percent($0.to))]) })),
                    ("folders", .array(cutReports.map { $0.json(includeMisses: misses) })),
                ])))
                json = .object(pairs)
            }
            print(json.prettySerialized())
        case .text:
            for (report, identity) in zip(reports, identities) {
                print(report.summaryLine)
                if !identity.line.isEmpty { print(identity.line) }
                if misses {
                    for miss in report.misses.sorted(by: { ($0.field.rawValue, $0.file) < ($1.field.rawValue, $1.file) }) {
                        print("  \(miss.field.rawValue)\t\(miss.file)\texpected \(miss.expected)\tgot \(miss.got)")
                    }
                    for miss in identity.misses { print("  identity\t\(miss.file)\texpected \(miss.expected)\tgot \(miss.got)") }
                }
            }
            if reliability { print(calibration.text) }
            if let bands {
                let label = "\(bands.count) pictures (" + bands.map { "\(Self.percent($0.from))–\(Self.percent($0.to)) %" }.joined(separator: ", ") + ")"
                print(CutComparison(whole: reports, cut: cutReports, label: label).text)
                let reasons = ReceiptAnalysis.reviewReasons.map { "\($0) \(cutReasons[$0] ?? 0)" }.joined(separator: ", ")
                print("  flagged as pictures of different receipts: \(reasons) (of \(cutRead) read in pictures)")
                if misses {
                    for report in cutReports {
                        for miss in report.misses.sorted(by: { ($0.field.rawValue, $0.file) < ($1.field.rawValue, $1.file) }) {
                            print("  cut \(miss.field.rawValue)\t\(miss.file)\texpected \(miss.expected)\tgot \(miss.got)")
                        }
                    }
                }
            }
            FileHandle.standardError.write(Data(String(format: "%d receipts in %.1f s (%.2f receipts/s)\n",
                                                       count, elapsed, Double(count) / max(elapsed, 0.001)).utf8))
        }
        if timeAnalyzer {
            let line = Self.timeHeuristicAnalyzer(on: firstPasses, options: processor.options)
            if format == .text { print(line) } else { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
    }

    /// Times `HeuristicAnalyzer` alone on OCR results already in memory: 5 rounds over all of them.
    static func timeHeuristicAnalyzer(on results: [OCRResult], options: AnalysisOptions) -> String {
        guard !results.isEmpty else { return "analyzer timing: no OCR results to time" }
        let analyzer = HeuristicAnalyzer(), clock = ContinuousClock(), rounds = 5
        var ms: [Double] = []
        for _ in 0..<rounds {
            for ocr in results {
                let start = clock.now
                _ = analyzer.analyze(ocr: ocr, options: options)
                ms.append((clock.now - start) / .milliseconds(1))
            }
        }
        ms.sort()
        let median = ms[ms.count / 2], p95 = ms[min(ms.count - 1, ms.count * 95 / 100)]
        let mean = ms.reduce(0, +) / Double(ms.count)
        return String(format: "analyzer (heuristic, first-pass OCR, no second passes): median %.2f ms, p95 %.2f ms, mean %.2f ms per receipt (%d receipts × %d rounds)",
                      median, p95, mean, results.count, rounds)
    }

    /// The cache's folder for `folder`'s receipts, under a name that changes whenever the first
    /// pass reads differently (`firstPassVersion`), so a kept cache never stands for another reading.
    static func cacheKey(_ folder: String) -> String {
        let trimmed = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return "v\(firstPassVersion)/" + trimmed.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: ".", with: "_")
    }

    /// Raised when the first pass changes: 2 reads bands of white-on-dark print again (`DarkBands`).
    static let firstPassVersion = 2

    /// The receipt's analysis and its first OCR pass. With a cache folder, each reader's first
    /// reading is kept there (Tesseract's as `<name>.tsv`, the neural reader's in a folder named
    /// for its model set) and read back on the next run. A receipt of several pictures
    /// (`NAME-1.jpg`, `NAME-2.jpg`… beside `NAME.expected.json`) is read as one.
    static func analyze(_ receipt: LabelledReceipt, processor: ReceiptProcessor, cacheDir: String?) async throws -> (ReceiptAnalysis, OCRResult) {
        if receipt.pictures.count > 1 {
            var pictures: [ReceiptPicture] = []
            for url in receipt.pictures {
                pictures.append(ReceiptPicture(data: try ReceiptFile.read(url, file: url.lastPathComponent), name: url.lastPathComponent))
            }
            return try await analyze(pictures: pictures, name: receipt.name, processor: processor, cacheDir: cacheDir)
        }
        guard let cacheDir else {
            let processed = try await processor.process(imageAt: receipt.image, displayPath: receipt.name)
            return (processed.analysis, processed.ocr)
        }
        let data = try ReceiptFile.read(receipt.image, file: receipt.name)
        let read = try await readings(of: data, name: receipt.name, processor: processor, cacheDir: cacheDir)
        let analysis = try await processor.analyze(ocr: read.ocr, neural: processor.readers == .both ? read.neural : nil,
                                                   imageData: data, displayPath: receipt.name, turn: read.turn)
        return (analysis, read.ocr)
    }

    /// A receipt of several pictures read as one, each picture's first readings kept in the cache
    /// (under its own name) when there is one. The first OCR pass returned is the joined one.
    static func analyze(pictures: [ReceiptPicture], name: String, processor: ReceiptProcessor,
                        cacheDir: String?) async throws -> (ReceiptAnalysis, OCRResult) {
        guard let cacheDir else {
            let processed = try await processor.process(pictures: pictures, displayPath: name)
            return (processed.analysis, processed.ocr)
        }
        var readings: [PictureReading] = []
        for picture in pictures {
            let read = try await Self.readings(of: picture.data, name: picture.name, processor: processor, cacheDir: cacheDir)
            readings.append(PictureReading(picture: picture, ocr: read.ocr, neural: processor.readers == .both ? read.neural : nil, turn: read.turn))
        }
        let analysis = try await processor.analyze(pictures: readings, displayPath: name)
        let join = PictureJoin.plan(readings.map { [$0.ocr] + ($0.neural.map { [$0] } ?? []) })
        return (analysis, join.join(readings.map(\.ocr)) ?? readings[0].ocr)
    }

    /// The first readings of some bytes named `name` (the readers' as `processor.readers` reads),
    /// kept in `cacheDir` and read back from it: Tesseract's (or the first reading with the neural
    /// reader alone), the neural reader's beside it, and how the page was turned to be read.
    static func readings(of data: Data, name: String, processor: ReceiptProcessor,
                         cacheDir: String) async throws -> (ocr: OCRResult, neural: OCRResult?, turn: PageTurn?) {
        let readers = processor.readers
        let tesseractFile = "\(cacheDir)/\(name).tsv"
        let neuralFile = processor.engine.neural.map { models in "\(cacheDir)/\(neuralCacheKey(models.configuration))/\(name).tsv" }
        // A PDF's text layer is every reader's reading: kept as Tesseract's, the neural one marked absent.
        let textLayer = readers == .neural && ImageFormat.sniff(data) == .pdf
        var tesseract = readers == .neural && !textLayer ? nil
            : (try? String(contentsOfFile: tesseractFile, encoding: .utf8)).map(OCRResult.init(tesseractTSV:))
        var neural = readers == .tesseract ? nil : neuralFile.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }
        if textLayer, neural == noNeuralReading, tesseract == nil { neural = nil }
        // A page read turned (ReceiptProcessor.upright): its readings are the turned page's, and so
        // must its further passes be; the turn is kept beside Tesseract's reading.
        let turnFile = "\(cacheDir)/\(name).turn"
        var turn = (try? String(contentsOfFile: turnFile, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            .flatMap(PageTurn.init(rawValue:))
        if (readers != .neural && tesseract == nil) || (readers != .tesseract && neural == nil) {
            let session = processor.engine.session(imageData: data, file: name, maxPasses: 2)
            let (ocr, read) = try await processor.firstReadings(session)
            turn = session.pageTurn
            if let turn {
                try? "\(turn.rawValue)\n".write(toFile: turnFile, atomically: true, encoding: .utf8)
            } else {
                try? FileManager.default.removeItem(atPath: turnFile)
            }
            if readers == .neural && session.readFromTextLayer {
                tesseract = ocr
                try? ocr.tesseractTSV.write(toFile: tesseractFile, atomically: true, encoding: .utf8)
                neural = noNeuralReading
            } else if readers == .neural {
                neural = ocr.tesseractTSV
            } else {
                tesseract = ocr
                try? ocr.tesseractTSV.write(toFile: tesseractFile, atomically: true, encoding: .utf8)
                neural = read?.tesseractTSV ?? noNeuralReading
            }
            if let neuralFile, let neural {
                try? FileManager.default.createDirectory(atPath: (neuralFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try? neural.write(toFile: neuralFile, atomically: true, encoding: .utf8)
            }
        }
        let neuralReading = neural.flatMap { $0 == noNeuralReading ? nil : OCRResult(tesseractTSV: $0) }
        let first = readers == .neural ? neuralReading ?? (textLayer ? tesseract : nil) ?? OCRResult(tesseractTSV: "")
            : tesseract ?? OCRResult(tesseractTSV: "")
        return (first, neuralReading, turn)
    }

    /// What the cut pictures of a receipt read as one.
    struct CutOutcome: Sendable {
        var analysis: ReceiptAnalysis?
        var error: String?
    }

    /// The receipt cut into `bands` of its height (each cut a JPEG made in memory from the photo as
    /// it is shown, upright) and read as one receipt of several pictures.
    static func analyzeCut(_ receipt: LabelledReceipt, bands: [(from: Double, to: Double)], processor: ReceiptProcessor,
                           cacheDir: String?) async -> CutOutcome {
        do {
            // Already in several pictures: read as they are.
            if receipt.pictures.count > 1 { return CutOutcome(analysis: try await analyze(receipt, processor: processor, cacheDir: cacheDir).0) }
            let data = try ReceiptFile.read(receipt.image, file: receipt.name)
            var pictures: [ReceiptPicture] = []
            for band in bands {
                let cut = try await processor.engine.cut(data, from: band.from, to: band.to, file: receipt.name)
                pictures.append(ReceiptPicture(data: cut, name: "\(receipt.name).cut-\(percent(band.from))-\(percent(band.to))"))
            }
            let (analysis, _) = try await analyze(pictures: pictures, name: receipt.name, processor: processor, cacheDir: cacheDir)
            return CutOutcome(analysis: analysis)
        } catch {
            return CutOutcome(error: "\(ErrorAdvice.flags.apply(to: error))")
        }
    }

    /// 0.38 → "38".
    static func percent(_ fraction: Double) -> String {
        let value = (fraction * 100 * 100).rounded() / 100
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Kept for a receipt the neural reader did not read beside Tesseract (a PDF's text layer).
    static let noNeuralReading = "# no neural reading\n"

    /// Raised when the neural reader reads differently (its pre- and post-processing).
    static let neuralReadingVersion = 1

    /// The folder of the neural readings made with `configuration`: named for the model set and a
    /// fingerprint of every setting that changes what it reads.
    static func neuralCacheKey(_ configuration: NeuralConfiguration) -> String {
        let settings = "\(configuration.modelSet.name) \(configuration.detectorMinimumSide) \(configuration.detectorMaximumSide) "
            + "\(configuration.detectorMaximumPixels) \(configuration.batchSize) \(configuration.recognizerMinimumWidth) \(configuration.grayInput)"
            // No limit (the default) is left out: the readings made before the limit existed stay valid.
            + (configuration.recognizerBatchWidth == Int.max ? "" : " \(configuration.recognizerBatchWidth)")
            // No header set (as before it existed) is left out too.
            + (configuration.headerReading.map { " header \($0.name) rows \(configuration.headerRows)" } ?? "")
            // Short crops read side by side (not before it existed) are another reading.
            + (configuration.recognizerPacking ? " packed \(configuration.recognizerPackingGap)" : "")
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in settings.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        let name = configuration.modelSet.name + (configuration.headerReading.map { "+\($0.name)-header" } ?? "")
        return "neural-\(name)-v\(neuralReadingVersion)-" + String(hash % 0xFFFFFF, radix: 16)
    }
}
