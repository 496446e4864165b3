import CTesseract
import Foundation
import ReceiptModel

/// Owns exactly one `TessBaseAPI`, freed in `deinit`. Not thread-safe: each OCR thread makes its own.
package final class TesseractHandle {
    private let raw: OpaquePointer
    package let languages: String

    package init(dataPath: String, languages: String) throws {
        guard let raw = TessBaseAPICreate() else {
            throw ReceiptError(.engineInitFailed, "cannot create a Tesseract engine (TessBaseAPICreate returned NULL)")
        }
        // Tesseract writes its chatter ("Estimating resolution…") to debug_file; silence it.
        TessBaseAPISetVariable(raw, "debug_file", "/dev/null")
        guard TessBaseAPIInit2(raw, dataPath, languages, OEM_DEFAULT) == 0 else {
            TessBaseAPIDelete(raw)                      // self never existed: deinit won't run
            throw ReceiptError(.engineInitFailed, "cannot load Tesseract language data '\(languages)' from \(dataPath)")
        }
        TessBaseAPISetVariable(raw, "debug_file", "/dev/null")
        self.raw = raw
        self.languages = languages
    }

    deinit {
        TessBaseAPIEnd(raw)
        TessBaseAPIDelete(raw)
    }

    /// Reads one image; the handle keeps no state from it afterwards.
    package func recognize(_ image: LeptonicaImage, pageSegmentationMode: Int) -> (text: String, lines: [OCRLine], meanConfidence: Double) {
        TessBaseAPISetPageSegMode(raw, TessPageSegMode(rawValue: UInt32(pageSegmentationMode)))
        TessBaseAPISetImage2(raw, image.pix)
        defer { TessBaseAPIClear(raw) }

        var text = ""
        if let cText = TessBaseAPIGetUTF8Text(raw) {
            text = String(cString: cText)
            TessDeleteText(cText)
        }
        var lines: [OCRLine] = []
        var words: [OCRWord] = []
        func flush() {
            guard !words.isEmpty else { return }
            lines.append(OCRLine(words: words))
            words = []
        }
        if let iterator = TessBaseAPIGetIterator(raw) {
            defer { TessResultIteratorDelete(iterator) }
            let page = TessResultIteratorGetPageIterator(iterator)
            repeat {
                if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 { flush() }
                guard let cWord = TessResultIteratorGetUTF8Text(iterator, RIL_WORD) else { continue }
                let word = String(cString: cWord)
                TessDeleteText(cWord)
                let trimmed = word.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !trimmed.isEmpty else { continue }
                var l: Int32 = 0, t: Int32 = 0, r: Int32 = 0, b: Int32 = 0
                TessPageIteratorBoundingBox(page, RIL_WORD, &l, &t, &r, &b)
                words.append(OCRWord(text: trimmed, confidence: Double(TessResultIteratorConfidence(iterator, RIL_WORD)),
                                     box: BoundingBox(x: Int(l), y: Int(t), width: Int(r - l), height: Int(b - t))))
            } while TessResultIteratorNext(iterator, RIL_WORD) != 0
            flush()
        }
        return (text, lines, OCRResult.meanConfidence(of: lines))
    }

    /// True when the loaded language's dictionary holds `word` (Tesseract matches its case
    /// variants: `BAKERIES`, `Bakeries` and `bakeries` alike).
    package func isDictionaryWord(_ word: String) -> Bool {
        TessBaseAPIIsValidWord(raw, word) != 0
    }
}

@available(*, unavailable) extension TesseractHandle: Sendable {}
