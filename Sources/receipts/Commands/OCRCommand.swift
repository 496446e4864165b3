import ArgumentParser
import Foundation
import ReceiptKit

struct OCRCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Print the text Tesseract reads from one image.",
        discussion: """
            Reads IMAGE (JPEG, PNG, TIFF, WebP, BMP or GIF) with the same preprocessing as `process` \
            and prints the recognized text, or with --tsv one row per word with its confidence and box \
            (Tesseract's TSV layout).
            """)

    @Argument(help: "The image file.")
    var image: String

    @Flag(help: "Print words with confidence and bounding box (tab-separated) instead of text.")
    var tsv = false

    @OptionGroup var ocr: OCROptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap()
        let engine = try ocr.makeEngine(threads: 1, logger: logger)
        let result: OCRResult
        do {
            result = try await engine.withRunning { engine in
                try await engine.recognize(imageAt: URL(fileURLWithPath: image), file: image)
            }
        } catch {
            printError(error)
            throw ExitCode(1)
        }
        if tsv {
            print(result.tesseractTSV, terminator: "")
        } else {
            print(result.text, terminator: "")
        }
    }
}
