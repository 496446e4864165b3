import Foundation
import ReceiptModel

/// How images are read. A `Sendable` value with defaults for everything.
public struct OCRConfiguration: Sendable, Equatable {
    /// Tesseract languages, `+`-separated (`eng`, `eng+deu`). Each needs its traineddata installed.
    public var languages: String
    /// Tesseract page segmentation mode. 6 (a single uniform block) reads receipts best.
    public var pageSegmentationMode: Int
    /// The tessdata folder; nil searches `TESSDATA_PREFIX`-free default locations.
    public var dataPath: String?
    /// Images with more pixels than this are refused before decoding.
    public var maxPixels: Int
    public var preprocessing: Preprocessing
    /// PDFs with more pages than this are refused (one receipt is one file; a long PDF is a
    /// statement or a report, not a receipt).
    public var maxPDFPages: Int

    public init(languages: String = "eng", pageSegmentationMode: Int = 6, dataPath: String? = nil,
                maxPixels: Int = 100_000_000, preprocessing: Preprocessing = .standard, maxPDFPages: Int = 10) {
        self.maxPDFPages = maxPDFPages
        self.languages = languages
        self.pageSegmentationMode = pageSegmentationMode
        self.dataPath = dataPath
        self.maxPixels = maxPixels
        self.preprocessing = preprocessing
    }
}

/// Image preparation before OCR.
public struct Preprocessing: Sendable, Equatable {
    /// When false the image goes to Tesseract exactly as decoded (as the `tesseract` CLI does):
    /// no EXIF rotation, no grayscale, no scaling.
    public var enabled: Bool
    /// Images narrower than this are scaled up (receipt photos from the web are often 200–600 px wide).
    public var minimumWidth: Int
    /// Upscaling never goes beyond this factor.
    public var maximumUpscale: Double
    /// Images are scaled down to at most this many pixels (bounds memory and time on huge scans).
    public var maximumPixels: Int
    /// Crops a receipt out of a mostly blank page scan before scaling.
    public var cropToContent: Bool

    public init(enabled: Bool = true, minimumWidth: Int = 1000, maximumUpscale: Double = 3.5,
                maximumPixels: Int = 4_000_000, cropToContent: Bool = true) {
        self.enabled = enabled
        self.minimumWidth = minimumWidth
        self.maximumUpscale = maximumUpscale
        self.maximumPixels = maximumPixels
        self.cropToContent = cropToContent
    }

    public static let standard = Preprocessing()
    public static let none = Preprocessing(enabled: false)
}

extension OCRConfiguration {
    package static let defaultDataPaths = [
        "/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
        "/usr/share/tessdata", "/usr/local/share/tessdata", "/opt/homebrew/share/tessdata",
    ]

    /// The tessdata folder to use, after checking every language's traineddata is there.
    public func resolvedDataPath() throws -> String {
        let langs = languages.split(separator: "+").map(String.init)
        guard !langs.isEmpty, langs.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else {
            throw ReceiptError(.invalidConfiguration, "invalid language list '\(languages)': use codes like eng or eng+deu")
        }
        guard (0...13).contains(pageSegmentationMode) else {
            throw ReceiptError(.invalidConfiguration, "page segmentation mode must be 0–13, got \(pageSegmentationMode)")
        }
        let candidates = dataPath.map { [$0] } ?? Self.defaultDataPaths
        let fm = FileManager.default
        guard let dir = candidates.first(where: { fm.fileExists(atPath: "\($0)/eng.traineddata") || fm.fileExists(atPath: "\($0)/\(langs[0]).traineddata") }) ?? dataPath else {
            throw ReceiptError(.languageNotInstalled,
                           "no Tesseract language data found (looked in \(candidates.joined(separator: ", "))): install the Debian package tesseract-ocr-\(langs[0])",
                           hint: .tessdata)
        }
        for lang in langs where !fm.fileExists(atPath: "\(dir)/\(lang).traineddata") {
            throw ReceiptError(.languageNotInstalled,
                           "language '\(lang)' is not installed (no \(lang).traineddata in \(dir)): install the Debian package tesseract-ocr-\(lang.replacingOccurrences(of: "_", with: "-").lowercased())")
        }
        return dir
    }
}
