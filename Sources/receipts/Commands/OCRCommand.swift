import ArgumentParser
import Foundation
import ReceiptKit

struct OCRCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Print the text Tesseract or the neural reader reads from one image.",
        discussion: """
            Reads IMAGE (JPEG, PNG, TIFF, WebP, BMP or GIF) with the same preprocessing as `process` \
            and prints the recognized text, or with --tsv one row per word with its confidence and box \
            (Tesseract's TSV layout). By default (--reader both) it prints Tesseract's reading, then \
            the neural reader's (PP-OCR models through OpenVINO, installed by `make neural`), in the \
            same pixels, each after a line `# tesseract` or `# neural`; --reader tesseract or \
            --reader neural prints one reading alone.
            """)

    @Argument(help: "The image file.")
    var image: String

    @Flag(help: "Print words with confidence and bounding box (tab-separated) instead of text.")
    var tsv = false

    @Option(help: ArgumentHelp("Which reader: tesseract, neural, or both (each reading after a line `# tesseract` or `# neural`).",
                               valueName: "tesseract|neural|both"))
    var reader: ReaderChoice = .both

    @Flag(name: .customLong("timing"), help: ArgumentHelp("Print the neural reader's time per stage on stderr.", visibility: .hidden))
    var timing = false

    @OptionGroup var ocr: OCROptions
    @OptionGroup var neural: NeuralOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap()
        let models = reader == .tesseract ? nil : try neural.load(streams: 1, logger: logger)
        let engine = try ocr.makeEngine(threads: 1, neural: models, logger: logger)
        let (reader, timing, image) = (self.reader, self.timing, self.image)
        let readings: [(name: String, result: OCRResult)]
        do {
            readings = try await engine.withRunning { engine in
                let data = try ReceiptFile.read(URL(fileURLWithPath: image), file: image)
                let session = engine.session(imageData: data, file: image, maxPasses: 2)
                var readings: [(String, OCRResult)] = []
                if reader != .neural { readings.append(("tesseract", try await session.firstReading())) }
                if reader != .tesseract {
                    let (result, stages) = try await session.neuralReadingTimed()
                    if timing {
                        let line = String(format: "neural: detection %.3f s, recognition %.3f s, %d boxes, header %.3f s, crops %d px wide, padded %d px\n",
                                          stages.detection.seconds, stages.recognition.seconds, stages.boxes, stages.header.seconds,
                                          stages.cropWidth, stages.paddedWidth)
                        FileHandle.standardError.write(Data(line.utf8))
                    }
                    readings.append(("neural", result))
                }
                return readings
            }
        } catch {
            printError(error)
            throw ExitCode(1)
        }
        for (name, result) in readings {
            if reader == .both { print("# \(name)") }
            print(tsv ? result.tesseractTSV : result.text, terminator: "")
        }
    }
}
