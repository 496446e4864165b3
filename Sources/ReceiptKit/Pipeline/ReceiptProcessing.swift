import Foundation

/// Turns one receipt image into OCR text and an analysis: the work a queue worker does per job.
///
/// The real implementation is `ReceiptProcessor` (Tesseract + an analyzer). Errors thrown are
/// `ReceiptError`s whose description is one line naming the file and the cause.
public protocol ReceiptProcessing: Sendable {
    /// - Parameter displayPath: the path as the user gave it, used in errors and results.
    func process(imageData: Data, displayPath: String) async throws -> ProcessedReceipt
}

/// The outcome of processing one receipt image.
public struct ProcessedReceipt: Sendable {
    public var ocr: OCRResult
    public var analysis: ReceiptAnalysis

    public init(ocr: OCRResult, analysis: ReceiptAnalysis) {
        self.ocr = ocr
        self.analysis = analysis
    }
}

/// A receipt that could not be processed. `description` is one line: `<file>: <cause>`.
public struct ReceiptError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// The file does not exist, is a folder, or cannot be read.
        case unreadable
        /// The bytes are not an image we can decode (empty, truncated, unknown or unsupported format).
        case badImage
        /// The image is larger than the configured pixel limit.
        case tooLarge
        /// OCR failed (engine could not start, language data missing, …).
        case ocrFailed
        /// The analyzer failed.
        case analysisFailed
    }

    public var code: Code
    /// The file as the user named it.
    public var file: String
    public var message: String
    /// Whether trying again later may succeed (e.g. a remote analyzer timed out).
    public var isTransient: Bool

    public init(_ code: Code, file: String, _ message: String, isTransient: Bool = false) {
        self.code = code
        self.file = file
        self.message = message
        self.isTransient = isTransient
    }

    public var description: String {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        return "\(file): \(oneLine)"
    }
}
