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
            _ = Leptonica.silenced
            guard let format = ImageFormat.sniff(data) else {
                throw ReceiptError(.badImage, file: file, "not an image: unrecognised format (supported: \(ImageFormat.supportedNames))")
            }
            var image: LeptonicaImage
            switch format {
            case .pdf:
                throw ReceiptError(.badImage, file: file, "a PDF is not cut into pictures")
            case .heic, .avif:
                let heif = try HeifDecoder.decode(data, format: format, file: file, maxPixels: maxPixels)
                image = ImageLoader.applyOrientation(heif.orientation, to: heif.image) ?? heif.image
            case .jpeg:
                image = try ImageLoader(maxPixels: maxPixels, preprocessing: .none).decode(data, file: file).image
                image = ImageLoader.applyOrientation(ExifOrientation.read(jpeg: data), to: image) ?? image
            default:
                image = try ImageLoader(maxPixels: maxPixels, preprocessing: .none).decode(data, file: file).image
            }
            let top = Int((Double(image.height) * min(max(from, 0), 1)).rounded())
            let bottom = Int((Double(image.height) * min(max(to, 0), 1)).rounded())
            guard bottom > top, let band = image.clipped(x: 0, y: top, width: image.width, height: bottom - top) else {
                throw ReceiptError(.badImage, file: file, "nothing to cut between \(from) and \(to) of the picture's height")
            }
            var picture = band
            if picture.depth < 8 || picture.depth == 16 || pixGetColormap(picture.pix) != nil,
               let converted = picture.transformed({ pixConvertTo32($0) }) {
                picture = converted
            }
            var bytes: UnsafeMutablePointer<UInt8>? = nil
            var size = 0
            guard pixWriteMemJpeg(&bytes, &size, picture.pix, 95, 0) == 0, let bytes else {
                throw ReceiptError(.badImage, file: file, "cannot encode the cut picture as JPEG")
            }
            defer { free(bytes) }
            return Data(bytes: bytes, count: size)
        }
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
