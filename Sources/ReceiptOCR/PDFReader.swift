import CPoppler
import CTesseract
import Foundation
import ReceiptModel

/// PDF receipts through poppler's GLib API (Debian's `libpoppler-glib-dev`): the text layer read
/// exactly, with each word's box, and pages without text rendered for OCR.
///
/// Poppler rather than MuPDF or pdfium: Debian ships it as a C library with a stable API
/// (`poppler-glib`), it gives the text with a box per character (so the analyzer's layout
/// features work on an emailed receipt as on a photo), and it renders through cairo.
///
/// One receipt per file: the words of all its pages, each page below the one before.
final class PDFReader {
    /// The resolution boxes and renderings are in: a text PDF's words are placed as they would
    /// be on a 300-dpi scan of the page.
    static let dpi = 300.0

    private let document: OpaquePointer
    let file: String
    let pageCount: Int

    /// Opens the PDF in `data`. Throws `ReceiptError` naming `file`: encrypted, broken, no pages,
    /// or more than `maxPages` pages.
    init(_ data: Data, file: String, maxPages: Int) throws {
        self.file = file
        let bytes = data.withUnsafeBytes { raw in g_bytes_new(raw.baseAddress, gsize(raw.count)) }
        defer { g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<GError>?
        guard let document = poppler_document_new_from_bytes(bytes, nil, &error) else {
            defer { if error != nil { g_error_free(error) } }
            let code = error.map { Int($0.pointee.code) }
            let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
            if code == Int(POPPLER_ERROR_ENCRYPTED.rawValue) {
                throw ReceiptError(.badImage, file: file, "encrypted PDF: it needs a password to open")
            }
            throw ReceiptError(.badImage, file: file, "corrupt or unreadable PDF: \(message)")
        }
        self.document = document
        pageCount = Int(poppler_document_get_n_pages(document))
        // (Every stored property is set: a throw from here on still runs deinit, which frees the document.)
        guard pageCount > 0 else {
            throw ReceiptError(.badImage, file: file, "empty PDF: it has no pages")
        }
        guard pageCount <= maxPages else {
            throw ReceiptError(.tooLarge, file: file, "PDF has \(pageCount) pages, above the limit of \(maxPages) for one receipt", hint: .maxPDFPages)
        }
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(document)) }

    private func withPage<T>(_ index: Int, _ body: (OpaquePointer) throws -> T) throws -> T {
        guard let page = poppler_document_get_page(document, Int32(index)) else {
            throw ReceiptError(.badImage, file: file, "corrupt PDF: cannot read page \(index + 1)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        return try body(page)
    }

    /// Page sizes in points (1/72 inch).
    func pageSizes() throws -> [(width: Double, height: Double)] {
        try (0..<pageCount).map { i in
            try withPage(i) { page in
                var w = 0.0, h = 0.0
                poppler_page_get_size(page, &w, &h)
                return (w, h)
            }
        }
    }

    /// The text layer as an OCR result: words with their boxes (at `dpi`, pages stacked) and full
    /// confidence, one line per line of text. Nil when no page has any text (a scan saved as PDF).
    func textLayer() throws -> OCRResult? {
        let scale = Self.dpi / 72
        var lines: [OCRLine] = []
        var top = 0.0, width = 0.0
        var anyText = false
        for i in 0..<pageCount {
            let height = try withPage(i) { page -> Double in
                var w = 0.0, h = 0.0
                poppler_page_get_size(page, &w, &h)
                width = max(width, w * scale)
                guard let cText = poppler_page_get_text(page) else { return h * scale }
                defer { g_free(cText) }
                var rects: UnsafeMutablePointer<PopplerRectangle>?
                var count: guint = 0
                guard poppler_page_get_text_layout(page, &rects, &count) != 0, let rects else { return h * scale }
                defer { g_free(rects) }
                let scalars = Array(String(cString: cText).unicodeScalars)
                var words: [OCRWord] = [], word = "", box: (Double, Double, Double, Double)?
                func endWord() {
                    if !word.isEmpty, let (x1, y1, x2, y2) = box {
                        words.append(OCRWord(text: word, confidence: 100, box: BoundingBox(
                            x: Int((x1 * scale).rounded(.down)), y: Int((top + y1 * scale).rounded(.down)),
                            width: max(1, Int(((x2 - x1) * scale).rounded(.up))), height: max(1, Int(((y2 - y1) * scale).rounded(.up))))))
                    }
                    word = ""; box = nil
                }
                func endLine() {
                    endWord()
                    if !words.isEmpty { lines.append(OCRLine(words: words)) }
                    words = []
                }
                // One rectangle per character of the text, newlines included.
                for (k, scalar) in scalars.enumerated() {
                    if scalar == "\n" { endLine(); continue }
                    if CharacterSet.whitespaces.contains(scalar) || k >= Int(count) { endWord(); continue }
                    let r = rects[k]
                    let (x1, y1, x2, y2) = (min(r.x1, r.x2), min(r.y1, r.y2), max(r.x1, r.x2), max(r.y1, r.y2))
                    // Text placed in columns comes without a space between them ("VAT @ 20%10.50"): a gap
                    // wider than a third of the letters' height ends the word.
                    if let (_, _, previousRight, _) = box, x1 - previousRight > (y2 - y1) / 3 { endWord() }
                    word.unicodeScalars.append(scalar)
                    box = box.map { (min($0.0, x1), min($0.1, y1), max($0.2, x2), max($0.3, y2)) } ?? (x1, y1, x2, y2)
                    anyText = true
                }
                endLine()
                return h * scale
            }
            top += height
        }
        guard anyText else { return nil }
        let text = lines.map(\.text).joined(separator: "\n") + "\n"
        return OCRResult(text: text, lines: lines, meanConfidence: 100, imageWidth: Int(width.rounded(.up)),
                         imageHeight: Int(top.rounded(.up)), sourceWidth: Int(width.rounded(.up)), sourceHeight: Int(top.rounded(.up)))
    }

    /// Page `index` (from 0) alone, in colour (32-bit RGB) for people to look at: at `dpi` or
    /// less, so that its long side is at most `maxDimension` pixels and its area at most
    /// `maxPixels`.
    func renderPage(_ index: Int, maxDimension: Int, maxPixels: Int) throws -> LeptonicaImage {
        try withPage(index) { page in
            var w = 0.0, h = 0.0
            poppler_page_get_size(page, &w, &h)
            var scale = min(Self.dpi / 72, Double(maxDimension) / max(w, h, 1))
            if w * h * scale * scale > Double(maxPixels) { scale = (Double(maxPixels) / (w * h)).squareRoot() }
            let width = Int(w * scale), height = Int(h * scale)
            guard width > 0, height > 0, let pix = pixCreate(Int32(width), Int32(height), 32) else {
                throw ReceiptError(.badImage, file: file, "corrupt PDF: page \(index + 1) has no size")
            }
            let image = LeptonicaImage(taking: pix)
            guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
                throw ReceiptError(.badImage, file: file, "cannot render the PDF: out of memory")
            }
            defer { cairo_surface_destroy(surface) }
            let cr = cairo_create(surface)
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            cairo_scale(cr, scale, scale)
            poppler_page_render(page, cr)
            cairo_destroy(cr)
            cairo_surface_flush(surface)
            guard let data = cairo_image_surface_get_data(surface), let target = pixGetData(pix) else {
                throw ReceiptError(.badImage, file: file, "cannot render the PDF: out of memory")
            }
            let stride = Int(cairo_image_surface_get_stride(surface)), wordsPerLine = Int(pixGetWpl(pix))
            for y in 0..<height {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                let out = target + y * wordsPerLine
                // Cairo's 0x00RRGGBB to Leptonica's 0xRRGGBBAA.
                for x in 0..<width { out[x] = row[x] << 8 }
            }
            return image
        }
    }

    /// Every page rendered in 8-bit gray, one below the other, at `dpi` or less so that the whole
    /// stays within `maxPixels`.
    func render(maxPixels: Int) throws -> LeptonicaImage {
        let sizes = try pageSizes()
        var scale = Self.dpi / 72
        let area = sizes.reduce(0.0) { $0 + $1.width * $1.height } * scale * scale
        if area > Double(maxPixels) { scale *= (Double(maxPixels) / area).squareRoot() }
        let width = Int((sizes.map(\.width).max() ?? 0) * scale)
        let heights = sizes.map { Int($0.height * scale) }
        let total = heights.reduce(0, +)
        guard width > 0, total > 0, let pix = pixCreate(Int32(width), Int32(total), 8) else {
            throw ReceiptError(.badImage, file: file, "corrupt PDF: its pages have no size")
        }
        let image = LeptonicaImage(taking: pix)
        pixSetAllArbitrary(pix, 255)
        guard let target = pixGetData(pix) else { throw ReceiptError(.badImage, file: file, "cannot render the PDF: out of memory") }
        let wordsPerLine = Int(pixGetWpl(pix))
        var y0 = 0
        for i in 0..<pageCount {
            let h = heights[i]
            let pageWidth = Int(sizes[i].width * scale)
            guard h > 0, pageWidth > 0 else { continue }
            guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(pageWidth), Int32(h)) else { continue }
            defer { cairo_surface_destroy(surface) }
            let cr = cairo_create(surface)
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            cairo_scale(cr, scale, scale)
            try withPage(i) { page in poppler_page_render(page, cr) }
            cairo_destroy(cr)
            cairo_surface_flush(surface)
            guard let data = cairo_image_surface_get_data(surface) else { continue }
            let stride = Int(cairo_image_surface_get_stride(surface))
            for y in 0..<h {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                let out = target + (y0 + y) * wordsPerLine
                for x in 0..<pageWidth {
                    let p = row[x]                       // 0x00RRGGBB
                    let r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF
                    let luma = (r * 77 + g * 150 + b * 29) >> 8
                    // Four 8-bit pixels a 32-bit word, the first in the most significant byte.
                    let shift = UInt32(24 - 8 * (x & 3))
                    out[x >> 2] = (out[x >> 2] & ~(0xFF << shift)) | (luma << shift)
                }
            }
            y0 += h
        }
        return image
    }
}
