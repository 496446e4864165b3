import CTesseract
import Foundation
import ReceiptModel

/// Decodes image bytes with Leptonica and prepares them for OCR.
///
/// Every failure is a `ReceiptError` whose message says what is wrong with the file.
package struct ImageLoader {
    package var maxPixels: Int
    package var preprocessing: Preprocessing
    package var maxPDFPages = 10
    /// Images bigger than this are read as grayscale: colour helps Tesseract on photos of
    /// ordinary size, but on big scans it costs 4 bytes a pixel in every copy Tesseract makes.
    package static let luminanceOnlyAbove = 4_000_000
    /// Pictures that would be bigger than this after scaling are read in gray.
    /// (Measured on ../shared/receipts: peak RSS of one tall scan 111 → 96 MB, accuracy unchanged
    /// or better: SROIE dates 83% → 85% on one pass.)
    package static let colourBudget = 2_000_000

    package struct Loaded {
        let image: LeptonicaImage
        /// Size as decoded (after EXIF orientation), before scaling.
        let sourceWidth: Int
        let sourceHeight: Int
    }

    /// Decodes and prepares an image for one pass (`decode` then `prepare`).
    package func load(_ data: Data, file: String, pass: OCRPass? = nil) throws -> Loaded {
        let decoded = try decode(data, file: file)
        return Loaded(image: prepare(decoded.image, pass: pass), sourceWidth: decoded.sourceWidth, sourceHeight: decoded.sourceHeight)
    }

    /// Decodes image bytes: EXIF orientation applied, colour map removed, 8-bit gray or 32-bit
    /// colour, and (for a page scan) cropped to the receipt. What every OCR pass of a receipt
    /// starts from: an OCR session decodes once and prepares each pass from this.
    package func decode(_ data: Data, file: String) throws -> Loaded {
        _ = Leptonica.silenced
        guard !data.isEmpty else { throw ReceiptError(.badImage, file: file, "file is empty (0 bytes)") }
        guard let format = ImageFormat.sniff(data) else {
            throw ReceiptError(.badImage, file: file, "not an image: unrecognised format (supported: \(ImageFormat.supportedNames))")
        }
        switch format {
        case .pdf:
            // A scan saved as PDF (or a PDF sent to an API that takes pictures only): its pages rendered.
            let rendered = try PDFReader(data, file: file, maxPages: maxPDFPages).render(maxPixels: maxPixels)
            return try finish(rendered, format: format, orientation: .up, storedWidth: rendered.width, storedHeight: rendered.height, file: file)
        case .heic, .avif:
            let heif = try HeifDecoder.decode(data, format: format, file: file, maxPixels: maxPixels)
            return try finish(heif.image, format: format, orientation: heif.orientation, storedWidth: heif.width, storedHeight: heif.height, file: file)
        default: break
        }

        var fmt: Int32 = 0, w: Int32 = 0, h: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, cmap: Int32 = 0
        let headerOK = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            pixReadHeaderMem(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &fmt, &w, &h, &bps, &spp, &cmap) == 0
        }
        guard headerOK, w > 0, h > 0 else {
            throw ReceiptError(.badImage, file: file, "corrupt \(format.rawValue.uppercased()) image: cannot read its header")
        }
        let pixels = Int(w) * Int(h)
        guard pixels <= maxPixels else {
            throw ReceiptError(.tooLarge, file: file, String(format: "image is %d×%d pixels (%.1f megapixels), above the limit of %.1f megapixels", w, h, Double(pixels) / 1e6, Double(maxPixels) / 1e6), hint: .maxPixels)
        }

        if format == .jpeg && !Self.hasEndOfImageMarker(data) {
            throw ReceiptError(.badImage, file: file, "truncated JPEG: the file ends before the image data does")
        }
        let decoded: PixPointer? = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let base = raw.bindMemory(to: UInt8.self).baseAddress
            if format == .jpeg {
                var warnings: Int32 = 0
                // Decoding only the luminance needs a quarter of the memory of RGB.
                // Big scans decode only the luminance: a quarter of the memory of RGB. Smaller images keep
                // their colour, which Tesseract's own thresholding reads better than our grayscale
                // (measured on ../shared/receipts: dates found 78% vs 74% on SROIE).
                let hint = preprocessing.enabled && pixels > Self.luminanceOnlyAbove ? Int32(L_JPEG_READ_LUMINANCE) : 0
                // libjpeg can decode at 1/2 or 1/4 size for almost nothing: big photos and page
                // scans are decoded smaller instead of decoded whole and scaled down (peak memory),
                // as long as the smaller picture keeps most of the OCR pixel budget.
                var reduction: Int32 = 1
                if preprocessing.enabled {
                    while reduction < 4 && Double(pixels) / Double(4 * reduction * reduction) >= 0.6 * Double(preprocessing.maximumPixels) { reduction *= 2 }
                }
                return pixReadMemJpeg(base, raw.count, 0, reduction, &warnings, hint)
            }
            return pixReadMem(base, raw.count)
        }
        guard let decoded else {
            let why = format == .jpeg ? "corrupt or truncated JPEG data" : "corrupt \(format.rawValue.uppercased()) image data"
            throw ReceiptError(.badImage, file: file, "cannot decode image: \(why)")
        }
        let orientation = format == .jpeg ? ExifOrientation.read(jpeg: data) : .up
        return try finish(LeptonicaImage(taking: decoded), format: format, orientation: orientation,
                          storedWidth: Int(w), storedHeight: Int(h), file: file)
    }

    /// The steps after decoding, whatever the format: orientation, colour map, gray for big
    /// pictures, 8 or 32 bits a pixel, cropping a page scan to its receipt.
    private func finish(_ decoded: LeptonicaImage, format: ImageFormat, orientation: ExifOrientation,
                        storedWidth w: Int, storedHeight h: Int, file: String) throws -> Loaded {
        var image = decoded
        guard preprocessing.enabled else {
            return Loaded(image: image, sourceWidth: image.width, sourceHeight: image.height)
        }
        if let turned = Self.applyOrientation(orientation, to: image) {
            image = turned
        }
        // The size of the picture as stored (a huge JPEG may have been decoded smaller), upright.
        let sideways = [.leftMirrored, .right, .rightMirrored, .left].contains(orientation)
        let sourceWidth = Int(sideways ? h : w), sourceHeight = Int(sideways ? w : h)
        if pixGetColormap(image.pix) != nil, let plain = image.transformed({ pixRemoveColormap($0, Int32(REMOVE_CMAP_BASED_ON_SRC)) }) {
            image = plain
        }
        if image.depth == 32 && image.pixelCount > Self.luminanceOnlyAbove,
           let gray = image.transformed({ pixConvertRGBToLuminance($0) }) {
            image = gray
        }
        if image.depth != 8 && image.depth != 32 {
            guard let gray = image.transformed({ pixConvertTo8($0, 0) }) else {
                throw ReceiptError(.badImage, file: file, "cannot convert the image to grayscale (\(image.depth) bits per pixel)")
            }
            image = gray
        }
        if preprocessing.cropToContent, let cropped = Self.cropToContent(image) {
            image = cropped
        }
        return Loaded(image: image, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
    }

    /// Scale and (for a pass that asks) binarize a decoded image, or cut a pass's region out of
    /// it. The decoded image is not changed. Without preprocessing, the image as decoded.
    package func prepare(_ decoded: LeptonicaImage, pass: OCRPass?) -> LeptonicaImage {
        guard preprocessing.enabled else { return decoded }
        var image = decoded
        var scale = baseScale(width: image.width, pixels: image.pixelCount)
        if let region = pass?.region {
            // The region is in the coordinates of the first pass's image: cut it out of this one
            // before scaling, so a close-up of a few lines never scales the whole page.
            if let clipped = image.clipped(x: Int(Double(region.x) / scale), y: Int(Double(region.y) / scale),
                                           width: Int((Double(region.width) / scale).rounded(.up)),
                                           height: Int((Double(region.height) / scale).rounded(.up))) {
                image = clipped
            }
        }
        if let pass {
            scale *= pass.scale
            // Every pass stays within the pixel budget (memory and time).
            let limit = Double(preprocessing.maximumPixels)
            if Double(image.pixelCount) * scale * scale > limit {
                scale = (limit / Double(image.pixelCount)).squareRoot()
            }
        }
        // Colour costs 4 bytes a pixel in every copy (ours and Tesseract's): big pictures go gray
        // before scaling.
        if image.depth == 32, Double(image.pixelCount) * scale * scale > Double(Self.colourBudget),
           let gray = image.transformed({ pixConvertRGBToLuminance($0) }) {
            image = gray
        }
        if abs(scale - 1) > 0.02, let scaled = image.transformed({ pixScale($0, Float(scale), Float(scale)) }) {
            image = scaled
        }
        if pass?.binarize == true,
           let bin = image.transformed({ pixBackgroundNormSimple($0, nil, nil) }) {
            image = bin
        }
        return image
    }

    /// A faint page made dark on light: the gray levels from the darkest 3% of pixels up to the
    /// median (the paper) are spread over the whole range, so print a little darker than the paper
    /// becomes black. The levels are measured inside the page's central part (a scanner's dark edges
    /// would otherwise count as the print). Nil when the image cannot be converted or has no
    /// contrast at all.
    package static func stretchContrast(_ image: LeptonicaImage) -> LeptonicaImage? {
        guard let gray = image.grayscale() else { return nil }
        let (w, h) = (gray.width, gray.height)
        let sample = gray.clipped(x: w / 10, y: h / 10, width: w - w / 5, height: h - h / 5) ?? gray
        guard let dark = sample.grayLevel(rank: 0.03, factor: 2), let paper = sample.grayLevel(rank: 0.5, factor: 2),
              paper > dark + 8 else { return nil }
        return gray.transformed { pixGammaTRC(nil, $0, 1.0, Int32(dark), Int32(paper)) }
    }

    /// The first pass's scale: narrow photos up to `minimumWidth`, big scans down to `maximumPixels`.
    private func baseScale(width: Int, pixels: Int) -> Double {
        var scale = 1.0
        if width < preprocessing.minimumWidth {
            scale = min(preprocessing.maximumUpscale, Double(preprocessing.minimumWidth) / Double(width))
        }
        let limit = Double(preprocessing.maximumPixels)
        if Double(pixels) * scale * scale > limit {
            scale = (limit / Double(pixels)).squareRoot()
        }
        return scale
    }

    /// For page scans with a receipt on a blank page: the bounding box of the dark content, when it
    /// is clearly smaller than the page. Nil when there is nothing to crop.
    package static func cropToContent(_ image: LeptonicaImage) -> LeptonicaImage? {
        guard image.pixelCount > 4_000_000 else { return nil }
        // Work on a 1/8 reduction that keeps each cell's darkest pixel, so thin print survives;
        // closing joins the print of the receipt into one blob, opening drops scanner specks.
        guard let gray = image.depth == 8 ? image : image.transformed({ pixConvertTo8($0, 0) }),
              let small = gray.transformed({ pixScaleGrayMinMax($0, 8, 8, Int32(L_CHOOSE_MIN)) }),
              let binary = small.transformed({ pixThresholdToBinary($0, 160) }),
              let closed = binary.transformed({ pixCloseBrick(nil, $0, 7, 7) }),
              let opened = closed.transformed({ pixOpenBrick(nil, $0, 3, 3) })
        else { return nil }
        var box: UnsafeMutablePointer<BOX>? = nil
        guard pixClipBoxToForeground(opened.pix, nil, nil, &box) == 0, box != nil else { return nil }
        defer { boxDestroy(&box) }
        var x: Int32 = 0, y: Int32 = 0, w: Int32 = 0, h: Int32 = 0
        boxGetGeometry(box, &x, &y, &w, &h)
        let area = Double(w * h) / Double(small.pixelCount)
        guard area < 0.6, area > 0.03 else { return nil }
        let margin: Int32 = 4
        let fx = max(0, (x - margin) * 8), fy = max(0, (y - margin) * 8)
        let fw = min(Int32(image.width) - fx, (w + 2 * margin) * 8), fh = min(Int32(image.height) - fy, (h + 2 * margin) * 8)
        var full = boxCreateValid(fx, fy, fw, fh)
        defer { boxDestroy(&full) }
        guard let full else { return nil }
        return image.transformed { pixClipRectangle($0, full, nil) }
    }

    /// A complete JPEG ends with the EOI marker (FF D9), possibly followed by a little padding.
    /// Checking it first keeps libjpeg from printing "Premature end of JPEG file" on stderr.
    package static func hasEndOfImageMarker(_ data: Data) -> Bool {
        let tail = [UInt8](data.suffix(4096))
        guard tail.count >= 2 else { return false }
        for i in stride(from: tail.count - 2, through: 0, by: -1) where tail[i] == 0xFF && tail[i + 1] == 0xD9 {
            return true
        }
        return false
    }

    /// `image` turned by `turn` (the image itself if Leptonica cannot turn it).
    package static func turned(_ image: LeptonicaImage, _ turn: PageTurn) -> LeptonicaImage {
        let orientation: ExifOrientation = switch turn {
        case .right: .right
        case .half: .down
        case .left: .left
        }
        return applyOrientation(orientation, to: image) ?? image
    }

    package static func applyOrientation(_ orientation: ExifOrientation, to image: LeptonicaImage) -> LeptonicaImage? {
        switch orientation {
        case .up: return nil
        case .upMirrored: return image.transformed { pixFlipLR(nil, $0) }
        case .down: return image.transformed { pixRotate180(nil, $0) }
        case .downMirrored: return image.transformed { pixFlipTB(nil, $0) }
        case .leftMirrored: return image.transformed { pixRotate90($0, 1) }?.transformed { pixFlipLR(nil, $0) }
        case .right: return image.transformed { pixRotate90($0, 1) }
        case .rightMirrored: return image.transformed { pixRotate90($0, 1) }?.transformed { pixFlipTB(nil, $0) }
        case .left: return image.transformed { pixRotate90($0, -1) }
        }
    }
}
