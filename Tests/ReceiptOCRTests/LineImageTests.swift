import CTesseract
import COCRTuning
import Foundation
import Testing
@testable import ReceiptKit
@testable import TestHelpers

/// The pixWriteMem override (COCRTuning): Tesseract's line images are stored as PNG without zlib
/// compression, and still decode to exactly the same pixels.
@Suite struct LineImageTests {
    @Test func theOverrideIsTheOneTesseractCalls() {
        // When the linker stops exporting it, Tesseract silently falls back to Leptonica's
        // compressed PNGs and OCR is about a fifth slower.
        #expect(OCREngine.lineImagesUncompressed)
    }

    @Test func aProgramCanOptOutOfTheOverrideAndReadsTheSameText() async throws {
        let image = ReceiptsCLI.testReceipt("uk-parking.jpg")
        let tuned = try await ReceiptsCLI.run(["ocr", "--reader", "tesseract", image])
        let plain = try await ReceiptsCLI.run(["ocr", "--reader", "tesseract", image], environment: ["RECEIPTS_COMPRESSED_LINE_IMAGES": "1"])
        #expect(tuned.status == 0 && plain.status == 0)
        #expect(!tuned.out.isEmpty)
        #expect(plain.out == tuned.out)
    }

    @Test("PNG written through the override decodes to the same pixels", arguments: [1, 8, 32])
    func pngRoundTrip(depth: Int32) throws {
        var pix: UnsafeMutablePointer<PIX>? = pixCreate(301, 77, depth)
        try #require(pix != nil)
        defer { pixDestroy(&pix) }
        // A pattern, so compression would have something to do.
        for y in 0..<Int32(77) {
            for x in 0..<Int32(301) {
                let v = UInt32((x * 7 + y * 13) % 256)
                let value: UInt32 = depth == 1 ? v & 1 : depth == 8 ? v : (v << 24 | (255 - v) << 16 | (v / 2) << 8)
                pixSetPixel(pix, x, y, value)
            }
        }
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        #expect(pixWriteMem(&data, &size, pix, Int32(IFF_PNG)) == 0)
        let bytes = try #require(data)
        defer { free(bytes) }
        // Level 0 stores the rows: the file is at least as big as the raw pixels (RGB without alpha).
        let bitsPerPixel = depth == 32 ? 24 : Int(depth)
        #expect(size >= 301 * 77 * bitsPerPixel / 8)
        #expect(Array(UnsafeBufferPointer(start: bytes, count: 8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var back: UnsafeMutablePointer<PIX>? = pixReadMem(bytes, size)
        try #require(back != nil)
        defer { pixDestroy(&back) }
        var same: Int32 = 0
        pixEqual(pix, back, &same)
        #expect(same == 1)
    }

    @Test func otherFormatsGoToLeptonica() throws {
        var pix: UnsafeMutablePointer<PIX>? = pixCreate(40, 30, 8)
        try #require(pix != nil)
        defer { pixDestroy(&pix) }
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        #expect(pixWriteMem(&data, &size, pix, Int32(IFF_BMP)) == 0)
        let bytes = try #require(data)
        defer { free(bytes) }
        #expect(bytes[0] == UInt8(ascii: "B") && bytes[1] == UInt8(ascii: "M"))
    }
}
