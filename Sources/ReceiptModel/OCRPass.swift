import Foundation

/// Settings for a second OCR pass over the same image.
public struct OCRPass: Sendable, Hashable {
    /// Page segmentation mode (Tesseract's PSM number), e.g. 4 (single column) or 11 (sparse text).
    public var pageSegmentationMode: Int
    /// Multiplies the preprocessing's target scale (e.g. 1.5 reads small text larger).
    public var scale: Double
    /// Region of the preprocessed image to read (in `OCRResult.imageWidth/Height` pixels), or nil.
    public var region: BoundingBox?
    /// Binarize before OCR.
    public var binarize: Bool

    public init(pageSegmentationMode: Int = 6, scale: Double = 1, region: BoundingBox? = nil, binarize: Bool = false) {
        self.pageSegmentationMode = pageSegmentationMode
        self.scale = scale
        self.region = region
        self.binarize = binarize
    }
}

public enum DateOrder: String, Sendable, CaseIterable {
    case dayFirst = "day-first"
    case monthFirst = "month-first"
}
