import ArgumentParser
import Foundation
import Logging
import ReceiptKit

/// OCR flags shared by every command that reads images.
struct OCROptions: ParsableArguments {
    @Option(name: .customLong("lang"), help: "Tesseract languages, '+'-separated (e.g. eng+deu); each needs its tesseract-ocr-<lang> package.")
    var languages = "eng"

    @Option(name: .customLong("psm"), help: "Tesseract page segmentation mode (6 = one uniform block, best for receipts).")
    var pageSegmentationMode = 6

    @Option(name: .customLong("tessdata"), help: "Folder holding <lang>.traineddata (default: $TESSDATA_PREFIX, then the system's tessdata).")
    var tessdata: String?

    @Option(name: .customLong("max-pixels"), help: "Refuse images with more megapixels than this, before decoding them.")
    var maxMegapixels: Double = 100

    @Option(name: .customLong("max-pdf-pages"), help: "Refuse PDFs with more pages than this (one receipt is one file; a PDF's pages are read together).")
    var maxPDFPages = 10

    @Option(name: .customLong("min-width"), help: ArgumentHelp("Scale narrower images up to this width in pixels before OCR.", visibility: .hidden))
    var minimumWidth = Preprocessing.standard.minimumWidth

    @Option(name: .customLong("max-ocr-megapixels"), help: ArgumentHelp("Scale bigger images down to this size before OCR.", visibility: .hidden))
    var maximumOCRMegapixels = Double(Preprocessing.standard.maximumPixels) / 1e6

    @Flag(name: .customLong("no-crop"), help: ArgumentHelp("Do not crop page scans to the receipt.", visibility: .hidden))
    var noCrop = false

    @Flag(name: .customLong("no-preprocess"), help: "Give Tesseract the image as decoded (no EXIF rotation, grayscale, crop or rescale).")
    var noPreprocess = false

    func validate() throws {
        guard (0...13).contains(pageSegmentationMode) else { throw ValidationError("--psm must be between 0 and 13.") }
        guard maxMegapixels > 0 else { throw ValidationError("--max-pixels must be positive.") }
        guard maxPDFPages > 0 else { throw ValidationError("--max-pdf-pages must be positive.") }
    }

    var configuration: OCRConfiguration {
        OCRConfiguration(
            languages: languages, pageSegmentationMode: pageSegmentationMode,
            dataPath: tessdata ?? ProcessInfo.processInfo.environment["TESSDATA_PREFIX"].map { prefix in
                // TESSDATA_PREFIX may name the tessdata folder itself or its parent.
                FileManager.default.fileExists(atPath: prefix + "/tessdata") ? prefix + "/tessdata" : prefix
            },
            maxPixels: Int(maxMegapixels * 1_000_000),
            preprocessing: noPreprocess ? .none : Preprocessing(
                minimumWidth: minimumWidth, maximumPixels: Int(maximumOCRMegapixels * 1e6), cropToContent: !noCrop),
            maxPDFPages: maxPDFPages)
    }

    func makeEngine(threads: Int, neural: NeuralModels? = nil, logger: Logger) throws -> OCREngine {
        do {
            return try OCREngine(configuration: configuration, threads: threads, neural: neural, logger: logger)
        } catch let error as ReceiptError {
            printError(error.advised.message)
            throw ExitCode(2)
        }
    }
}
