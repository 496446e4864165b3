import ReceiptModel

/// The codes of reading a receipt image and OCR.
extension ReceiptError.Code {
    /// The bytes are not an image we can decode (empty, truncated, unknown or unsupported format).
    public static let badImage = Self("badImage")
    /// The image (or PDF) is larger than the configured limit.
    public static let tooLarge = Self("tooLarge")
    /// OCR failed on this image (the engine could not start, …).
    public static let ocrFailed = Self("ocrFailed")
    /// A Tesseract language's data is not installed.
    public static let languageNotInstalled = Self("languageNotInstalled")
    /// The OCR engine could not start.
    public static let engineInitFailed = Self("engineInitFailed")
}

/// Remedies a program names in its own terms (its flags), appended by its `ErrorAdvice`.
extension ReceiptError.Hint {
    /// An image above `OCRConfiguration.maxPixels`.
    public static let maxPixels = Self("maxPixels")
    /// A PDF above `OCRConfiguration.maxPDFPages`.
    public static let maxPDFPages = Self("maxPDFPages")
    /// No Tesseract language data where `OCRConfiguration.dataPath` (or the usual places) points.
    public static let tessdata = Self("tessdata")
}
