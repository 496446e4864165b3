import Foundation

/// Turns one receipt image into OCR text and an analysis: the work a queue worker does per job.
///
/// The real implementation is `ReceiptProcessor` (Tesseract + an analyzer). Errors thrown are
/// `ReceiptError`s whose description is one line naming the file and the cause.
public protocol ReceiptProcessing: Sendable {
    /// - Parameter displayPath: the path as the user gave it, used in errors and results.
    func process(imageData: Data, displayPath: String) async throws -> ProcessedReceipt
    /// A receipt photographed in several pictures (top to bottom), read as one receipt.
    func process(pictures: [ReceiptPicture], displayPath: String) async throws -> ProcessedReceipt
    /// The OCR engine the processor reads with, when it has one: `receipts serve` sizes
    /// `POST /v1/analyze` by its threads and pixel limit and reports whether it runs.
    var ocrEngine: OCREngine? { get }
    /// The processor reading with the memory of shops of the receipt's book (issue 57): the queue's
    /// workers read each receipt with its own book's. One that has no use for it returns itself.
    func remembering(_ memory: (any ShopMemory)?) -> any ReceiptProcessing
}

extension ReceiptProcessing {
    public var ocrEngine: OCREngine? { nil }
    public func remembering(_ memory: (any ShopMemory)?) -> any ReceiptProcessing { self }

    /// One picture is read as any receipt; a processor that cannot join pictures refuses several.
    public func process(pictures: [ReceiptPicture], displayPath: String) async throws -> ProcessedReceipt {
        guard pictures.count == 1, let picture = pictures.first else {
            throw ReceiptError(.analysisFailed, file: displayPath, "this processor reads a receipt of one picture only (got \(pictures.count))")
        }
        return try await process(imageData: picture.data, displayPath: displayPath)
    }
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

