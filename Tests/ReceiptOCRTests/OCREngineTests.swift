import Foundation
import Testing
@testable import ReceiptKit
import ReceiptEvaluation
@testable import TestHelpers
@testable import TestSupport

/// Real images through real Tesseract.
@Suite struct OCREngineTests {
    static let engine: OCREngine = TestSupport.runningEngine(threads: 2)
    static let rawEngine: OCREngine = TestSupport.runningEngine(OCRConfiguration(preprocessing: .none), threads: 1)

    /// The `tesseract` CLI's text for an image with --psm 6.
    static func tesseractCLI(_ path: String) async throws -> String {
        try await OffPool.run { try tesseractCLIBlocking(path) }
    }

    private static func tesseractCLIBlocking(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tesseract")
        process.arguments = [path, "stdout", "--psm", "6"]
        var env = ProcessInfo.processInfo.environment
        env["OMP_THREAD_LIMIT"] = "1"
        process.environment = env
        let out = try CapturedOutput()
        process.standardOutput = out.handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return out.text
    }

    @Test("Without preprocessing the text is exactly what `tesseract IMG stdout --psm 6` prints",
          arguments: ["uk-fuel-unleaded.jpg", "uk-supermarket.jpg", "us-diner.jpg", "uk-fuel-diesel.png"])
    func matchesTesseractCLI(name: String) async throws {
        let path = ReceiptsCLI.testReceipt(name)
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tesseract"), "the tesseract CLI is not installed")
        let ours = try await Self.rawEngine.recognize(imageAt: URL(fileURLWithPath: path))
        let theirs = try await Self.tesseractCLI(path)
        #expect(ours.text == theirs)
    }

    @Test func wordsCarryConfidenceAndBoxesInsideTheImage() async throws {
        let result = try await Self.engine.recognize(imageAt: URL(fileURLWithPath: ReceiptsCLI.testReceipt("uk-parking.jpg")))
        #expect(result.lines.count > 5)
        #expect(result.meanConfidence > 50)
        let words = result.words
        #expect(words.contains { $0.text == "PARKING" })
        for word in words {
            #expect((0...100).contains(word.confidence))
            #expect(word.box.x >= 0 && word.box.y >= 0 && word.box.width > 0 && word.box.height > 0)
            #expect(word.box.maxX <= result.imageWidth && word.box.maxY <= result.imageHeight)
        }
        // Lines read top to bottom.
        let tops = result.lines.map(\.box.y)
        #expect(tops == tops.sorted())
    }

    @Test("Every supported format decodes and reads", arguments: [
        ("uk-fuel-diesel.png", "DIESEL"), ("uk-garage-mot.tiff", "MOT"), ("uk-vehicle-tax.webp", "DVLA"),
        ("fr-garage.bmp", "TTC"), ("uk-parking-ticket.gif", "PARKING"),
    ])
    func readsEveryFormat(name: String, expected: String) async throws {
        let result = try await Self.engine.recognize(imageAt: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name)))
        #expect(result.text.uppercased().contains(expected.uppercased()), "\(name): \(result.text.prefix(300))")
    }

    @Test func appliesExifOrientation() async throws {
        let path = ReceiptsCLI.testReceipt("exif-orientation-6.jpg")
        let truth = try LabelledFolder.readTruth(URL(fileURLWithPath: ReceiptsCLI.testReceipt("exif-orientation-6.expected.json")))
        let upright = try await Self.engine.recognize(imageAt: URL(fileURLWithPath: path))
        let total = try #require(truth.total).moneyString
        #expect(upright.text.contains(total))
        // The stored pixels are sideways: read as stored, the total is not there.
        let sideways = try await Self.rawEngine.recognize(imageAt: URL(fileURLWithPath: path))
        #expect(!sideways.text.contains(total))
        #expect(upright.sourceHeight > upright.sourceWidth)
    }

    @Test func smallPhotosAreScaledUpAndHugeScansDown() async throws {
        let small = try await Self.engine.recognize(imageAt: URL(fileURLWithPath: ReceiptsCLI.testReceipt("photo-lowres-carwash.jpg")))
        #expect(small.sourceWidth < 400)
        #expect(small.imageWidth >= 2 * small.sourceWidth)
        let scan = try await Self.engine.recognize(imageAt: URL(fileURLWithPath: ReceiptsCLI.testReceipt("scan-a4-pub.jpg")))
        #expect(scan.sourceWidth * scan.sourceHeight > 30_000_000)
        #expect(scan.imageWidth * scan.imageHeight <= Preprocessing.standard.maximumPixels)
        #expect(scan.text.contains("TOTAL") || scan.text.contains("Total"))
    }

    @Test func aMissingLanguageNamesThePackageToInstall() throws {
        #expect {
            _ = try OCREngine(configuration: OCRConfiguration(languages: "eng+xyz"), threads: 1, logger: TestSupport.logger)
        } throws: { error in
            "\(error)".contains("tesseract-ocr-xyz") && "\(error)".contains("xyz.traineddata")
        }
    }

    @Test func engineWorkOverlapsOnSeveralThreads() async throws {
        // Eight receipts on a two-thread engine all complete, with results matching each image.
        let names = ["uk-parking.jpg", "us-diner.jpg", "uk-insurance.jpg", "de-tankstelle.jpg"]
        let results = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for name in names + names {
                group.addTask {
                    (name, try await Self.engine.recognize(imageAt: URL(fileURLWithPath: ReceiptsCLI.testReceipt(name))).text)
                }
            }
            return try await group.reduce(into: [(String, String)]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        for name in names {
            let texts = Set(results.filter { $0.0 == name }.map(\.1))
            #expect(texts.count == 1, "the same image read twice gave different text: \(name)")
        }
    }

    @Test func aSessionDecodesOnceAndReadsEachPassAsAFreshReadWould() async throws {
        let path = ReceiptsCLI.testReceipt("uk-fuel-unleaded.jpg")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let session = Self.engine.session(imageData: data, file: path, maxPasses: 3)
        let first = try await session.firstReading()
        let band = BoundingBox(x: 0, y: first.imageHeight / 3, width: first.imageWidth, height: first.imageHeight / 4)
        let closeUp = try #require(try await session.read(OCRPass(scale: 2, region: band)))
        let smaller = try #require(try await session.read(OCRPass(scale: 0.8)))
        #expect(session.timesDecoded == 1)
        #expect(session.passesRead == 3)
        // The budget spent is an ordinary answer, not an error.
        #expect(session.passesLeft == 0)
        #expect(try await session.read(OCRPass(scale: 0.8)) == nil)
        // Each pass reads what a session of its own (decoding again) reads.
        let fresh = Self.engine.session(imageData: data, file: path, maxPasses: 2)
        #expect(try await fresh.firstReading() == first)
        #expect(try await fresh.read(OCRPass(scale: 2, region: band)) == closeUp)
        #expect(closeUp.text != first.text && !closeUp.text.isEmpty)
        #expect(smaller.imageWidth < first.imageWidth)
    }

    @Test func aSessionAndItsDecodedImageAreFreedOnceTheReceiptIsRead() async throws {
        // Each session holds a decoded image (megabytes); the engine's queue must not keep it.
        let path = ReceiptsCLI.testReceipt("uk-parking.jpg")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        weak var released: OCRSession?
        do {
            let session = Self.engine.session(imageData: data, file: path, maxPasses: 2)
            _ = try await session.firstReading()
            _ = try await session.read(OCRPass(scale: 0.8))
            released = session
        }
        // The OCR thread lets go of the job a moment after it has answered.
        #expect(try await eventually(timeout: 2) { released == nil })
    }

    @Test func anEngineThatCannotStartFailsTheWorkWaitingForItInsteadOfHanging() async throws {
        // The file is there (the configuration check passes) but is no language model.
        let dir = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: dir.path("eng.traineddata"), contents: Data("not a model".utf8)))
        let engine = try OCREngine(configuration: OCRConfiguration(dataPath: dir.url.path), threads: 1, logger: TestSupport.logger)
        let path = ReceiptsCLI.testReceipt("uk-parking.jpg")
        let waiting = Task { try await engine.recognize(imageAt: URL(fileURLWithPath: path)) }
        #expect(try await eventually { engine.queuedJobs >= 1 }, "the work waits in the engine's queue")
        await #expect(throws: ReceiptError.self) { try await engine.run() }
        let result = await waiting.result
        #expect((try? result.get()) == nil)
        if case let .failure(error) = result { #expect((error as? ReceiptError)?.code == .engineInitFailed) }
    }

    @Test func aStoppedEngineRefusesWorkAndWithRunningStopsIt() async throws {
        let engine = try OCREngine(threads: 1, logger: TestSupport.logger)
        let path = ReceiptsCLI.testReceipt("uk-parking.jpg")
        let text = try await engine.withRunning { try await $0.recognize(imageAt: URL(fileURLWithPath: path)).text }
        #expect(text.localizedCaseInsensitiveContains("parking"))
        await #expect {
            _ = try await engine.recognize(imageAt: URL(fileURLWithPath: path))
        } throws: { error in
            (error as? ReceiptError)?.code == .engineInitFailed
        }
    }
}
