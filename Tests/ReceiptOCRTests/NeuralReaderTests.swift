import Foundation
import Logging
import ReceiptOCR
import Testing
@testable import ReceiptKit
@testable import TestHelpers
@testable import TestSupport

/// The neural reader's networks installed by `make neural`, loaded once for the test process.
enum NeuralTestSupport {
    static let directory = ReceiptsCLI.repositoryRoot.appendingPathComponent(".build/neural").path
    static let installed = FileManager.default.fileExists(atPath: directory + "/MANIFEST")
    static let skipReason: Comment = "the neural reader is not installed: run `make neural` (looked for \(directory)/MANIFEST)"

    /// The one compiled set of networks of the test process and an engine of two OCR threads using
    /// it (a load that fails is each test's failure, not a crash).
    private static let shared = Result { () throws -> (NeuralModels, OCREngine) in
        let models = try NeuralModels(configuration: NeuralConfiguration(directory: directory), streams: 2, logger: TestSupport.logger)
        let engine = try OCREngine(threads: 2, neural: models, logger: TestSupport.logger)
        Task.detached { try await engine.run() }
        return (models, engine)
    }

    /// PP-OCRv4 for the page and v6 small for its header band (`--neural-header-models`): the
    /// networks compiled once; an engine over them runs only for the test that uses it (one that
    /// ran for the whole process beside the shared one kept its threads busy when later tests ran).
    private static let sharedHeaderModels = Result { () throws -> NeuralModels in
        let configuration = NeuralConfiguration(directory: directory, modelSet: .ppocrV4, headerModelSet: .ppocrV6Small)
        return try NeuralModels(configuration: configuration, streams: 2, logger: TestSupport.logger)
    }

    static func headerModels() throws -> NeuralModels { try sharedHeaderModels.get() }

    /// `body` with an engine reading through the header models, and the sessions of `names` on it.
    static func withHeaderSessions<T>(_ names: [String], _ body: ([OCRSession]) async throws -> T) async throws -> T {
        let engine = try OCREngine(threads: 2, neural: try headerModels(), logger: TestSupport.logger)
        return try await engine.withRunning { engine in
            let sessions = try names.map { name in
                let path = ReceiptsCLI.testReceipt(name)
                return engine.session(imageData: try Data(contentsOf: URL(fileURLWithPath: path)), file: path)
            }
            return try await body(sessions)
        }
    }

    static func models() throws -> NeuralModels { try shared.get().0 }
    static func engine() throws -> OCREngine { try shared.get().1 }

    static func session(_ name: String) throws -> OCRSession {
        let path = ReceiptsCLI.testReceipt(name)
        return try engine().session(imageData: try Data(contentsOf: URL(fileURLWithPath: path)), file: path)
    }
}

/// Real PP-OCR models through the real OpenVINO runtime on real receipts.
@Suite(.enabled(if: NeuralTestSupport.installed, NeuralTestSupport.skipReason), .serialized)
struct NeuralReaderTests {
    @Test("The total and the date are in the neural reading", arguments: [
        ("uk-fuel-diesel.png", "90.70", "02AUG2023"), ("us-diner.jpg", "33.50", "11/23/2024"),
    ])
    func readsTotalAndDate(name: String, total: String, date: String) async throws {
        let reading = try await NeuralTestSupport.session(name).neuralReading()
        #expect(reading.text.contains(total), "\(reading.text)")
        #expect(reading.text.replacingOccurrences(of: " ", with: "").contains(date), "\(reading.text)")
        #expect(reading.words.contains { $0.text.contains(total) }, "the total is a word of its own")
        for word in reading.words {
            #expect((0...100).contains(word.confidence))
            #expect(word.box.x >= 0 && word.box.y >= 0 && word.box.maxX <= reading.imageWidth && word.box.maxY <= reading.imageHeight)
        }
        let tops = reading.lines.map(\.box.y)
        #expect(tops == tops.sorted(), "rows top to bottom")
    }

    @Test func readsTheTotalsOfTestReceipts() async throws {
        let folder = ReceiptsCLI.repositoryRoot.appendingPathComponent("TestReceipts")
        // The pages stored turned are read upright by the pipeline (`ReceiptProcessor.upright`), not by
        // a bare reading of the page as stored: `aPageStoredTurnedIsReadUpright`.
        let storedTurned: Set = ["scan-upside-down-tyres.png", "photo-sideways-fuel.jpg"]
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".md") && $0.contains(".") && !storedTurned.contains($0) }.sorted()
        var found: [String] = [], missed: [String] = []
        try await withThrowingTaskGroup(of: (String, Bool)?.self) { group in
            for name in names {
                let truth = folder.appendingPathComponent((name as NSString).deletingPathExtension + ".expected.json")
                guard let data = FileManager.default.contents(atPath: truth.path),
                      case let .string(total)? = try JSONValue.parse(data)["total"] else { continue }
                group.addTask {
                    let text = try await NeuralTestSupport.session(name).neuralReading().text
                    // A comma is a thousands separator (1,136.20) or a decimal one (12,50); a dot
                    // groups thousands of money without minor units (Rp 359.640).
                    return (name, text.replacingOccurrences(of: ",", with: "").contains(total)
                        || text.replacingOccurrences(of: ",", with: ".").contains(total)
                        || text.replacingOccurrences(of: ".", with: "").contains(total))
                }
            }
            for try await case let (name, ok)? in group { if ok { found.append(name) } else { missed.append(name) } }
        }
        // Measured: all 22 stored upright (Tesseract's first reading: 15 of the 17 pictures ocr-recall.py reads);
        // one miss is allowed for a model update's sake.
        #expect(found.count >= 21 && missed.count <= 1, "totals missed in \(missed.sorted())")
    }

    @Test func boxesAreInTheFirstReadingsPixels() async throws {
        let session = try NeuralTestSupport.session("uk-fuel-diesel.png")
        let tesseract = try await session.firstReading()
        let neural = try await session.neuralReading()
        #expect(session.timesDecoded == 1, "one decode for both readers")
        #expect(session.passesRead == 1 && session.neuralReadingsTaken == 1, "the neural reading takes no Tesseract pass")
        #expect(neural.imageWidth == tesseract.imageWidth && neural.imageHeight == tesseract.imageHeight)
        // The total's word, as each reader boxes it, is the same place on the page.
        let a = try #require(tesseract.words.first { $0.text.contains("90.70") })
        let b = try #require(neural.words.first { $0.text.contains("90.70") })
        #expect(abs(a.box.midY - b.box.midY) < a.box.height, "\(a.box) vs \(b.box)")
        #expect(abs(a.box.x - b.box.x) < a.box.height * 2, "\(a.box) vs \(b.box)")
    }

    @Test func aCloseUpOfOneRowIsReadAndMappedBack() async throws {
        let session = try NeuralTestSupport.session("us-diner.jpg")
        let page = try await session.neuralReading()
        let row = try #require(page.lines.first { $0.text.contains("33.50") })
        let margin = row.box.height / 2
        let region = BoundingBox(x: max(0, row.box.x - margin), y: max(0, row.box.y - margin),
                                 width: row.box.width + 2 * margin, height: row.box.height + 2 * margin)
        let closeUp = try await session.neuralReading(OCRPass(scale: 1.5, region: region))
        #expect(closeUp.text.contains("33.50"), "\(closeUp.text)")
        #expect(closeUp.imageWidth == page.imageWidth)
        let word = try #require(closeUp.words.first { $0.text.contains("33.50") })
        let original = try #require(page.words.first { $0.text.contains("33.50") })
        #expect(abs(word.box.x - original.box.x) <= original.box.height / 8 && abs(word.box.midY - original.box.midY) <= original.box.height / 8,
                "\(word.box) vs \(original.box)")
        #expect(session.timesDecoded == 1)
        // The same close-up through the protocol analyzers see.
        let reader: any PageReader = session
        #expect(try await reader.neuralRead(OCRPass(scale: 1.5, region: region))?.text.contains("33.50") == true)
    }

    @Test func twoOCRThreadsShareOneCompiledNetwork() async throws {
        let models = try NeuralTestSupport.models()
        let compiled = NeuralModels.compiledNetworks
        let sessions = try ["uk-fuel-diesel.png", "us-diner.jpg", "uk-parking.jpg", "uk-supermarket.jpg"].map(NeuralTestSupport.session)
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for session in sessions { group.addTask { try await session.neuralReading().wordCount } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.allSatisfy { $0 > 10 })
        #expect(NeuralModels.compiledNetworks == compiled, "reading loads nothing: the networks were compiled once")
        #expect(models.header == nil, "the default reads no header band again")
        #expect(models.requestsMade <= 2 * (try NeuralTestSupport.engine().threads), "a thread's requests are made once and kept")
        #expect(models.requestsMade >= 2)
        // With a header set: one detector and one recognizer more, their requests made once a thread too.
        let withHeader = try NeuralTestSupport.headerModels()
        let before = NeuralModels.compiledNetworks
        try await NeuralTestSupport.withHeaderSessions(["uk-fuel-diesel.png", "us-diner.jpg"]) { sessions in
            for session in sessions { _ = try await session.neuralReading() }
        }
        #expect(NeuralModels.compiledNetworks == before, "reading with a header set loads nothing either")
        let header = try #require(withHeader.header)
        #expect(header.requestsMade <= 2 * (try NeuralTestSupport.engine().threads) && header.requestsMade >= 1)
    }

    /// The recognizer `make neural` post-processes (`rec-top.onnx`: each column's best class, its
    /// probability and the space's, taken inside the graph) reads what the published `rec.onnx`
    /// reads, whose 18,708 probabilities a column the reader took the same three values from.
    @Test func theTopClassRecognizerReadsWhatTheFullScoresRead() async throws {
        var published = NeuralModelSet.ppocrV4DetectorV6SmallRecognizer
        published.recognizer = .init("rec.onnx", sha256: "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884",
                                     folder: NeuralModelSet.ppocrV6Small.name)
        #expect(try NeuralTestSupport.models().configuration.modelSet.recognizer.name == "rec-top.onnx", "the default reads the post-processed recognizer")
        let models = try NeuralModels(configuration: NeuralConfiguration(directory: NeuralTestSupport.directory, modelSet: published),
                                      streams: 1, logger: TestSupport.logger)
        let engine = try OCREngine(threads: 1, neural: models, logger: TestSupport.logger)
        let names = ["uk-fuel-diesel.png", "us-diner.jpg", "photo-us-gas-station.jpg"]
        let fromPublished = try await engine.withRunning { engine in
            var readings: [OCRResult] = []
            for name in names {
                let path = ReceiptsCLI.testReceipt(name)
                readings.append(try await engine.session(imageData: try Data(contentsOf: URL(fileURLWithPath: path)), file: path).neuralReading())
            }
            return readings
        }
        for (name, full) in zip(names, fromPublished) {
            let top = try await NeuralTestSupport.session(name).neuralReading()
            #expect(top.wordCount > 10)
            #expect(top.text == full.text, "\(name)")
            let confidences = { (r: OCRResult) in r.lines.flatMap { $0.words.map(\.confidence) } }
            #expect(zip(confidences(top), confidences(full)).allSatisfy { abs($0 - $1) < 0.01 }, "\(name)")
        }
    }

    /// The header band (the rows above the first priced row) is read again by the header's model
    /// set, whose rows take the page set's place there; the rows below are the page set's.
    @Test func theHeaderBandIsReadAgainByTheHeaderSet() async throws {
        let models = try NeuralTestSupport.headerModels()
        #expect(models.configuration.modelSet == .ppocrV4 && models.header?.configuration.modelSet == .ppocrV6Small)
        let (reading, timing) = try await NeuralTestSupport.withHeaderSessions(["uk-fuel-diesel.png"]) { sessions in
            try await sessions[0].neuralReadingTimed()
        }
        #expect(timing.header > .zero, "the header band was read again")
        #expect(reading.text.contains("KESTREL") && reading.text.contains("90.70"), "\(reading.text)")
        let tops = reading.lines.map(\.box.y)
        #expect(tops == tops.sorted(), "rows top to bottom")
    }

    @Test func theHeaderBandEndsAtTheFirstPricedRow() {
        func line(_ text: String, y: Int) -> OCRLine {
            OCRLine(words: text.split(separator: " ").enumerated().map { i, w in
                OCRWord(text: String(w), confidence: 90, box: BoundingBox(x: 10 + 60 * i, y: y, width: 50, height: 20))
            })
        }
        let page = [line("KESTREL FUEL", y: 10), line("12 Mill Lane", y: 40), line("DIESEL 45.20", y: 80), line("TOTAL 45.20", y: 110)]
        #expect(NeuralReader.headerBand(page) == 80)
        #expect(NeuralReader.headerBand(page, rows: 1) == 40, "at most the first row")
        #expect(NeuralReader.headerBand([line("TOTAL 3,99", y: 0)]) == nil, "a first row with a price leaves no header")
        #expect(NeuralReader.headerBand([line("no prices here", y: 30)]) == nil)
        let header = [line("KESTREL", y: 8), line("FUEL STATION", y: 30), line("DIESEL 45.20", y: 79)]
        let spliced = NeuralReader.spliced(page, header: header, above: 80)
        #expect(spliced.map(\.text) == ["KESTREL", "FUEL STATION", "DIESEL 45.20", "TOTAL 45.20"])
    }

    @Test func theKernelCacheKeepsAFewShapesSoMemoryDoesNotGrowWithEachPage() async throws {
        // Set before the runtime loads: with oneDNN's default 1,024 kernels, 41 receipts with 2
        // workers peaked ~80 MB higher (docs/benchmarks.md). A user's own setting is left alone.
        _ = try NeuralTestSupport.models()
        #expect(ProcessInfo.processInfo.environment["ONEDNN_PRIMITIVE_CACHE_CAPACITY"] == "64")
        #expect(try await NeuralTestSupport.session("uk-fuel-diesel.png").neuralReading().text.contains("90.70"))
    }

    @Test func aCorruptModelFileIsAOneLineErrorAndTesseractStillReads() async throws {
        let dir = try TemporaryDirectory()
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: dir.path("lib"), withDestinationPath: NeuralTestSupport.directory + "/lib")
        let set = NeuralModelSet.ppocrV4
        try fm.copyItem(atPath: NeuralTestSupport.directory + "/" + set.name, toPath: dir.path(set.name))
        let damaged = dir.path("\(set.name)/\(set.recognizer.name)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged))
        try handle.truncate(atOffset: 1000)
        try handle.close()

        let error = #expect(throws: ReceiptError.self) {
            _ = try NeuralModels(configuration: NeuralConfiguration(directory: dir.url.path, modelSet: set), streams: 1, logger: TestSupport.logger)
        }
        #expect(error?.code == .neuralModelCorrupt)
        let line = error.map(String.init(describing:)) ?? ""
        #expect(!line.contains("\n") && line.contains(damaged) && line.contains("SHA-256 mismatch") && line.contains("make neural"), "\(line)")

        let missing = #expect(throws: ReceiptError.self) {
            _ = try NeuralModels(configuration: NeuralConfiguration(directory: dir.path("nowhere")), streams: 1, logger: TestSupport.logger)
        }
        #expect(missing?.code == .neuralReaderNotInstalled)
        #expect(missing.map(String.init(describing:))?.contains("run `make neural`") == true)

        // Tesseract alone, and a neural reading asked of it, on the same engine.
        let engine = try OCREngine(threads: 1, logger: TestSupport.logger)
        try await engine.withRunning { engine in
            let path = ReceiptsCLI.testReceipt("uk-fuel-diesel.png")
            let session = engine.session(imageData: try Data(contentsOf: URL(fileURLWithPath: path)), file: path)
            #expect(try await session.firstReading().text.contains("DIESEL"))
            await #expect(throws: ReceiptError.self) { _ = try await session.neuralReading() }
            #expect(try await session.neuralRead(nil) == nil, "analyzers see no neural reader, not an error")
        }
    }
}

/// `receipts ocr --reader …` as a user runs it.
@Suite(.enabled(if: NeuralTestSupport.installed, NeuralTestSupport.skipReason))
struct NeuralReaderCLITests {
    @Test func aBatchThatFailsBeforeAnyReadingExitsWithItsErrorNotACrash() async throws {
        // The networks compile in the background while the first file is opened; a file that fails
        // at once ends the process while they compile. Exiting under a compilation crashed OpenVINO
        // (SIGSEGV or SIGABRT in about one run in five), so the process waits for it.
        let dir = try TemporaryDirectory()
        for run in 1...8 {
            let result = try await ReceiptsCLI.run(["process", "--force", "--store", dir.path("r.sqlite"),
                                                    ReceiptsCLI.testReceipt("bad/empty.jpg")])
            #expect(result.status == 1, "run \(run): exit status \(result.status) (a signal number means a crash): \(result.err)")
            #expect((result.out + result.err).contains("empty.jpg"), "\(result.out)\n\(result.err)")
        }
    }

    @Test func neuralTSVHasWordsWithBoxesAndConfidences() async throws {
        let result = try await ReceiptsCLI.run(["ocr", "--reader", "neural", "--tsv", ReceiptsCLI.testReceipt("uk-fuel-diesel.png")])
        #expect(result.status == 0, "\(result.err)")
        let reading = OCRResult(tesseractTSV: result.out)
        #expect(reading.text.contains("90.70"))
        #expect(reading.words.count > 20 && reading.words.allSatisfy { $0.confidence > 0 && $0.box.width > 0 })
    }

    @Test func bothPrintsEachReadingUnderItsName() async throws {
        let result = try await ReceiptsCLI.run(["ocr", "--reader", "both", ReceiptsCLI.testReceipt("us-diner.jpg")])
        #expect(result.status == 0, "\(result.err)")
        let parts = result.out.components(separatedBy: "# neural\n")
        // (A failed run prints no "# neural": stop here rather than index past the end and stop the
        // whole test process, as under ASan when the child crashed.)
        try #require(parts.count == 2)
        #expect(parts[0].hasPrefix("# tesseract\n"))
        #expect(parts[1].contains("33.50"))
    }

    @Test func withoutTheNeuralReaderOnlyNeuralFailsInOneLine() async throws {
        let elsewhere = ["RECEIPTS_NEURAL_DIR": "/nonexistent/neural", "RECEIPTS_READER": ""]
        let image = ReceiptsCLI.testReceipt("uk-fuel-diesel.png")
        let neural = try await ReceiptsCLI.run(["ocr", "--reader", "neural", image], environment: elsewhere)
        #expect(neural.status == 2)
        #expect(neural.err.split(separator: "\n").count == 1 && neural.err.contains("run `make neural`") && neural.err.contains("/nonexistent/neural"), "\(neural.err)")
        let tesseract = try await ReceiptsCLI.run(["ocr", "--reader", "tesseract", image], environment: elsewhere)
        #expect(tesseract.status == 0 && tesseract.out.contains("DIESEL"))
    }

    /// The default pipeline reads with both readers: on a machine without the neural reader it
    /// says in one line how to install it, stores nothing, and Tesseract alone still reads.
    /// A scan stored upside down and a photo stored sideways, neither with an EXIF orientation, are
    /// read upright by `process` (both readers and the neural reader alone): every field right, and
    /// the record says how the page was turned. A page stored upright is read once, as stored.
    @Test(arguments: ["both", "neural"])
    func aPageStoredTurnedIsReadUpright(reader: String) async throws {
        let dir = try TemporaryDirectory()
        for (name, turn) in [("scan-upside-down-tyres.png", "180"), ("photo-sideways-fuel.jpg", "90"), ("uk-fuel-diesel.png", nil)] {
            let image = ReceiptsCLI.testReceipt(name)
            let result = try await ReceiptsCLI.run(["process", image, "--force", "--store", dir.storePath, "--format", "json",
                                                    "--reader", reader, "-v"])
            #expect(result.status == 0, "\(name): \(result.err)")
            let record = try JSONValue.parse(Data(result.out.utf8))
            let analysis = try #require(record["analysis"] ?? record.arrayValue?.first?["analysis"], "\(name): \(result.out)")
            let truth = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: (image as NSString).deletingPathExtension + ".expected.json")))
            #expect(analysis["vendor"]?.stringValue?.uppercased() == truth["vendor"]?.stringValue?.uppercased(), "\(name)")
            #expect(analysis["date"]?.stringValue == truth["date"]?.stringValue, "\(name)")
            #expect(analysis["total"].map { Decimal(string: $0.serialized()) } == truth["total"]?.stringValue.map { Decimal(string: $0) }, "\(name)")
            #expect(analysis["pageTurn"]?.serialized() == turn, "\(name): \(analysis.serialized())")
            #expect(result.err.contains("Page read turned") == (turn != nil), "\(name): \(result.err)")
        }
    }

    @Test func withoutTheNeuralReaderTheDefaultPipelineSaysHowToInstallIt() async throws {
        let dir = try TemporaryDirectory()
        let elsewhere = ["RECEIPTS_NEURAL_DIR": "/nonexistent/neural", "RECEIPTS_READER": ""]
        let image = ReceiptsCLI.testReceipt("uk-fuel-diesel.png")
        let both = try await ReceiptsCLI.run(["process", image, "--store", dir.storePath, "--format", "ndjson"], environment: elsewhere)
        #expect(both.status == 2)
        #expect(both.err.split(separator: "\n").count == 1 && both.err.contains("run `make neural`"), "\(both.err)")
        #expect(both.out.isEmpty)
        let tesseract = try await ReceiptsCLI.run(["process", image, "--store", dir.storePath, "--format", "ndjson", "--reader", "tesseract"],
                                                  environment: elsewhere)
        #expect(tesseract.status == 0, "\(tesseract.err)")
        #expect(tesseract.out.contains("\"total\": 90.70") || tesseract.out.contains("\"total\":90.70"), "\(tesseract.out)")
    }

    /// The neural reader alone reads every field of every TestReceipt right, the currency too where
    /// it reads no `£` (a UK VAT number says pounds) or a bare `$` beside a state it misreads (a
    /// North American phone number says US dollars). One known miss: the tax of
    /// `de-fuel-two-rates.jpg`, whose VAT table the neural reader reads with its columns a row out
    /// (`A MwSt-Satz 19,0% Netto MwSt Brutto` / `B 7,0% 38,39 7,29 45,68`), so that no row pairs a
    /// rate with its amounts (Tesseract's reading, and so the default, gets the table's 7.46).
    /// And issue 58's letters and e-mails, missed by the default reading too until the model is
    /// refitted on their features (the sender of an e-mail from a government or council, the
    /// amount a letter asks for beside its other sums): docs/experiments.md.
    @Test func theNeuralReaderAloneReadsTestReceipts() async throws {
        let result = try await ReceiptsCLI.run(["eval", ReceiptsCLI.repositoryRoot.appendingPathComponent("TestReceipts").path,
                                                "--reader", "neural", "--format", "json", "--workers", "2", "--misses"])
        #expect(result.status == 0, "\(result.err)")
        let report = try JSONValue.parse(result.out)
        let folder = try #require(report["folders"]?.arrayValue?.first)
        let fields = ["vendor", "date", "total", "tax", "currency", "category"]
        for field in fields {
            #expect(folder["fields"]?[field]?["scored"]?.doubleValue ?? 0 > 0, "\(field) not scored")
        }
        let known: Set = ["de-fuel-two-rates.jpg tax", "uk-dvla-email.png vendor", "uk-council-permit-email.png vendor",
                          "uk-dvla-letter.jpg total", "uk-insurer-payment-email.png total", "uk-insurer-deposit-letter.png total"]
        let missed = (folder["misses"]?.arrayValue ?? []).compactMap { m -> String? in
            guard let field = m["field"]?.stringValue, fields.contains(field) else { return nil }
            return "\(m["file"]?.stringValue ?? "?") \(field)"
        }
        #expect(Set(missed).subtracting(known).isEmpty, "missed: \(missed.sorted())")
    }
}
