import CTesseract
import Foundation
import ReceiptModel

extension OCREngine {
    /// Re-encodes an image as JPEG for a remote analyzer: EXIF orientation applied, long side
    /// scaled down to the request's maximum, quality lowered until it fits `maxBytes`. Runs on the
    /// engine's threads, not on Swift's cooperative pool.
    public var imagePreparer: ImagePreparer {
        { [self] request in try await self.prepareForUpload(request) }
    }

    package func prepareForUpload(_ request: ImagePreparationRequest) async throws -> InlineImage {
        let (maxPixels, maxPDFPages) = (configuration.maxPixels, configuration.maxPDFPages)
        return try await onOCRThread { _ in
            var loader = ImageLoader(maxPixels: maxPixels, preprocessing: .none)
            loader.maxPDFPages = maxPDFPages
            let loaded = try loader.load(request.image, file: "image")
            var image = loaded.image
            if let format = ImageFormat.sniff(request.image), format == .jpeg,
               let turned = ImageLoader.applyOrientation(ExifOrientation.read(jpeg: request.image), to: image) {
                image = turned
            }
            if image.depth < 8 || pixGetColormap(image.pix) != nil,
               let converted = image.transformed({ pixConvertTo32($0) }) {
                image = converted
            }
            var longSide = max(image.width, image.height)
            var quality: Int32 = 85
            for _ in 0..<8 {
                var scaled = image
                if longSide < max(image.width, image.height) {
                    let s = Float(longSide) / Float(max(image.width, image.height))
                    if let smaller = image.transformed({ pixScale($0, s, s) }) { scaled = smaller }
                } else if max(image.width, image.height) > request.maxDimension {
                    longSide = request.maxDimension
                    continue
                }
                var bytes: UnsafeMutablePointer<UInt8>? = nil
                var size = 0
                guard pixWriteMemJpeg(&bytes, &size, scaled.pix, quality, 0) == 0, let bytes else {
                    throw ReceiptError(.badImage, file: "image", "cannot encode the image as JPEG")
                }
                let data = Data(bytes: bytes, count: size)
                free(bytes)
                if data.count <= request.maxBytes { return InlineImage(data: data, mimeType: "image/jpeg") }
                if quality > 60 { quality -= 15 } else { longSide = Int(Double(longSide) * 0.75) }
            }
            throw ReceiptError(.badImage, file: "image", "cannot make the image small enough to send (\(request.maxBytes) bytes)")
        }
    }
}
