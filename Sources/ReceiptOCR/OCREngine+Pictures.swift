import CTesseract
import Foundation
import ReceiptModel

/// A PDF page's size in points (1/72 inch).
public struct PDFPageSize: Sendable, Equatable {
    public let width: Double
    public let height: Double
}

/// How a picture for people is encoded.
public enum PictureEncoding: String, Sendable, CaseIterable {
    case png, jpeg
    public var mimeType: String { self == .png ? "image/png" : "image/jpeg" }
}

/// Pictures of a stored receipt for people (the review page): a PDF's pages one at a time, and
/// thumbnails. Decoded and rendered as OCR reads them (Leptonica, libheif, poppler), on the
/// engine's threads, within its limits (`maxPixels`, `maxPDFPages`).
extension OCREngine {
    /// The sizes of a PDF's pages. Throws `ReceiptError` as reading it does (broken, encrypted,
    /// more than `maxPDFPages` pages).
    public func pdfPageSizes(_ data: Data, file: String) async throws -> [PDFPageSize] {
        let maxPages = configuration.maxPDFPages
        return try await onOCRThread { _ in
            try PDFReader(data, file: file, maxPages: maxPages).pageSizes().map { PDFPageSize(width: $0.width, height: $0.height) }
        }
    }

    /// Page `number` (from 1) of a PDF, in colour, at 300 dpi or less so that its long side is at
    /// most `maxDimension` pixels (nil for a page the PDF does not have), and how many pages it has.
    public func pdfPage(_ data: Data, number: Int, encoding: PictureEncoding, maxDimension: Int,
                        file: String) async throws -> (picture: Data?, pageCount: Int) {
        let (maxPages, maxPixels) = (configuration.maxPDFPages, configuration.maxPixels)
        return try await onOCRThread { _ in
            let reader = try PDFReader(data, file: file, maxPages: maxPages)
            guard (1...reader.pageCount).contains(number) else { return (nil, reader.pageCount) }
            let picture = try Self.encode(reader.renderPage(number - 1, maxDimension: maxDimension, maxPixels: maxPixels), encoding, file: file)
            return (picture, reader.pageCount)
        }
    }

    /// A small JPEG of a receipt, upright, at most `maxDimension` pixels on its long side: any
    /// format OCR reads (a PDF's first page). A big JPEG is decoded at 1/2 to 1/8 of its size.
    public func thumbnail(_ data: Data, maxDimension: Int, file: String) async throws -> Data {
        let (maxPages, maxPixels) = (configuration.maxPDFPages, configuration.maxPixels)
        return try await onOCRThread { _ in
            _ = Leptonica.silenced
            guard let format = ImageFormat.sniff(data) else {
                throw ReceiptError(.badImage, file: file, "not an image: unrecognised format (supported: \(ImageFormat.supportedNames))")
            }
            var image: LeptonicaImage
            switch format {
            case .pdf:
                // Drawn larger and cut to its print (with a margin): a receipt on an A4 page, drawn
                // whole at thumbnail size, is a blank page with a grey smudge.
                image = try PDFReader(data, file: file, maxPages: maxPages).renderPage(0, maxDimension: 4 * maxDimension, maxPixels: maxPixels)
                image = Self.croppedToPrint(image) ?? image
            case .heic, .avif:
                let heif = try HeifDecoder.decode(data, format: format, file: file, maxPixels: maxPixels)
                image = ImageLoader.applyOrientation(heif.orientation, to: heif.image) ?? heif.image
            case .jpeg:
                guard let (w, h) = Self.dimensions(of: data), w * h <= maxPixels, ImageLoader.hasEndOfImageMarker(data) else {
                    // Too big, truncated or unreadable: the loader says which.
                    image = try ImageLoader(maxPixels: maxPixels, preprocessing: .none).decode(data, file: file).image
                    break
                }
                var reduction: Int32 = 1
                while reduction < 8 && max(w, h) / Int(2 * reduction) >= maxDimension { reduction *= 2 }
                var warnings: Int32 = 0
                let decoded = data.withUnsafeBytes { raw in
                    pixReadMemJpeg(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, 0, reduction, &warnings, 0)
                }
                guard let decoded else { throw ReceiptError(.badImage, file: file, "cannot decode image: corrupt or truncated JPEG data") }
                image = LeptonicaImage(taking: decoded)
                image = ImageLoader.applyOrientation(ExifOrientation.read(jpeg: data), to: image) ?? image
            default:
                image = try ImageLoader(maxPixels: maxPixels, preprocessing: .none).decode(data, file: file).image
            }
            let longSide = max(image.width, image.height)
            if longSide > maxDimension {
                let s = Float(maxDimension) / Float(longSide)
                // Scaled in gray or colour (area smoothing); a bilevel fax scan becomes 8-bit gray, not 32-bit.
                if pixGetColormap(image.pix) != nil, let plain = image.transformed({ pixRemoveColormap($0, Int32(REMOVE_CMAP_BASED_ON_SRC)) }) {
                    image = plain
                }
                if image.depth < 8 || image.depth == 16, let gray = image.transformed({ pixConvertTo8($0, 0) }) {
                    image = gray
                }
                guard let scaled = image.transformed({ pixScale($0, s, s) }) else {
                    throw ReceiptError(.badImage, file: file, "cannot scale the image")
                }
                image = scaled
            }
            return try Self.encode(image, .jpeg, file: file)
        }
    }

    /// PNG or JPEG bytes of an image (a colour-mapped or 1-bit image made 32-bit first for JPEG).
    static func encode(_ image: LeptonicaImage, _ encoding: PictureEncoding, file: String) throws -> Data {
        var image = image
        if encoding == .jpeg, image.depth < 8 || image.depth == 16 || pixGetColormap(image.pix) != nil,
           let converted = image.transformed({ pixConvertTo32($0) }) {
            image = converted
        }
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        let status = encoding == .png ? pixWriteMemPng(&bytes, &size, image.pix, 0) : pixWriteMemJpeg(&bytes, &size, image.pix, 82, 0)
        guard status == 0, let bytes else {
            throw ReceiptError(.badImage, file: file, "cannot encode the image as \(encoding.rawValue.uppercased())")
        }
        defer { free(bytes) }
        return Data(bytes: bytes, count: size)
    }
}
