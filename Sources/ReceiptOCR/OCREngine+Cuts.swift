import CTesseract
import Foundation
import ReceiptModel

/// A band of a picture as a picture of its own: how `receipts eval --cuts` makes, from a labelled
/// photo of a whole receipt, the overlapping pictures a person takes of a long one.
extension OCREngine {
    /// The rows from `from` to `to` (fractions of the height, 0…1) of the upright picture, at its
    /// full size, as a JPEG (quality 95). Throws `ReceiptError` for what OCR cannot decode, and
    /// for a PDF (a document has pages, not a height to cut).
    public func cut(_ data: Data, from: Double, to: Double, file: String) async throws -> Data {
        let maxPixels = configuration.maxPixels
        return try await onOCRThread { _ in
            let image = try Self.uprightPicture(data, file: file, maxPixels: maxPixels, what: "cut into pictures")
            let top = Int((Double(image.height) * min(max(from, 0), 1)).rounded())
            let bottom = Int((Double(image.height) * min(max(to, 0), 1)).rounded())
            guard bottom > top, let band = image.clipped(x: 0, y: top, width: image.width, height: bottom - top) else {
                throw ReceiptError(.badImage, file: file, "nothing to cut between \(from) and \(to) of the picture's height")
            }
            return try Self.jpeg(band, quality: 95, file: file)
        }
    }

    /// Another picture of the same receipt, as a person takes one: `crop` of the picture's width and
    /// height left off (half at each side), turned `degrees` (clockwise), saved again as a JPEG of
    /// `quality`: how `receipts eval --replay --second-pictures` makes the same purchase photographed twice.
    public func retake(_ data: Data, crop: Double = 0.03, degrees: Double = 2, quality: Int = 85, file: String) async throws -> Data {
        let maxPixels = configuration.maxPixels
        return try await onOCRThread { _ in
            var image = try Self.uprightPicture(data, file: file, maxPixels: maxPixels, what: "taken again")
            let dx = Int(Double(image.width) * crop / 2), dy = Int(Double(image.height) * crop / 2)
            if let cropped = image.clipped(x: dx, y: dy, width: image.width - 2 * dx, height: image.height - 2 * dy) { image = cropped }
            if image.depth < 8 || image.depth == 16 || pixGetColormap(image.pix) != nil, let converted = image.transformed({ pixConvertTo32($0) }) {
                image = converted
            }
            let radians = Float(degrees * Double.pi / 180)
            if let turned = image.transformed({ pixRotate($0, radians, Int32(L_ROTATE_AREA_MAP), Int32(L_BRING_IN_WHITE), 0, 0) }) {
                image = turned
            }
            return try Self.jpeg(image, quality: quality, file: file)
        }
    }

    /// A picture decoded and turned upright as it is shown (a PDF refused: it has pages).
    static func uprightPicture(_ data: Data, file: String, maxPixels: Int, what: String) throws -> LeptonicaImage {
        _ = Leptonica.silenced
        guard let format = ImageFormat.sniff(data) else {
            throw ReceiptError(.badImage, file: file, "not an image: unrecognised format (supported: \(ImageFormat.supportedNames))")
        }
        switch format {
        case .pdf:
            throw ReceiptError(.badImage, file: file, "a PDF is not \(what)")
        case .heic, .avif:
            let heif = try HeifDecoder.decode(data, format: format, file: file, maxPixels: maxPixels)
            return ImageLoader.applyOrientation(heif.orientation, to: heif.image) ?? heif.image
        case .jpeg:
            let image = try ImageLoader(maxPixels: maxPixels, preprocessing: .none).decode(data, file: file).image
            return ImageLoader.applyOrientation(ExifOrientation.read(jpeg: data), to: image) ?? image
        default:
            return try ImageLoader(maxPixels: maxPixels, preprocessing: .none).decode(data, file: file).image
        }
    }

    /// A picture as JPEG bytes of `quality`.
    static func jpeg(_ image: LeptonicaImage, quality: Int, file: String) throws -> Data {
        var picture = image
        if picture.depth < 8 || picture.depth == 16 || pixGetColormap(picture.pix) != nil,
           let converted = picture.transformed({ pixConvertTo32($0) }) {
            picture = converted
        }
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        guard pixWriteMemJpeg(&bytes, &size, picture.pix, Int32(quality), 0) == 0, let bytes else {
            throw ReceiptError(.badImage, file: file, "cannot encode the picture as JPEG")
        }
        defer { free(bytes) }
        return Data(bytes: bytes, count: size)
    }

    /// The part of a page that holds print, with a margin of 4 % of its long side; nil when the
    /// page is blank or the print fills it anyway.
    static func croppedToPrint(_ image: LeptonicaImage) -> LeptonicaImage? {
        guard let gray = image.grayscale(), let binary = gray.transformed({ pixThresholdToBinary($0, 200) }) else { return nil }
        var box: UnsafeMutablePointer<BOX>? = nil
        guard pixClipBoxToForeground(binary.pix, nil, nil, &box) == 0, box != nil else { return nil }
        defer { boxDestroy(&box) }
        var x: Int32 = 0, y: Int32 = 0, w: Int32 = 0, h: Int32 = 0
        boxGetGeometry(box, &x, &y, &w, &h)
        let margin = Int(0.04 * Double(max(w, h)))
        let left = max(0, Int(x) - margin), top = max(0, Int(y) - margin)
        let right = min(image.width, Int(x + w) + margin), bottom = min(image.height, Int(y + h) + margin)
        guard right - left < image.width * 9 / 10 || bottom - top < image.height * 9 / 10 else { return nil }
        return image.clipped(x: left, y: top, width: right - left, height: bottom - top)
    }
}
