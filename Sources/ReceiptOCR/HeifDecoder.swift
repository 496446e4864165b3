import CHeif
import CTesseract
import Foundation
import ReceiptModel

/// HEIC/HEIF (iPhone photos, HEVC through libde265) and AVIF, decoded in process with libheif.
///
/// The primary image is decoded with its transformations applied: libheif turns and mirrors it as
/// the file's `irot`/`imir` properties say. Those are what HEIF defines as the orientation, and an
/// EXIF orientation inside a HEIC that has them describes the same turn (iPhones write both), so it
/// is then ignored; a file without them (converted by tools that copy only the EXIF) is turned as
/// its EXIF orientation says (`orientation` in the result).
enum HeifDecoder {
    /// Decodes `data` into a 32-bit RGB Leptonica image, refusing pictures above `maxPixels`
    /// before decoding them. Throws `ReceiptError` naming `file` and the cause.
    static func decode(_ data: Data, format: ImageFormat, file: String, maxPixels: Int)
        throws -> (image: LeptonicaImage, width: Int, height: Int, orientation: ExifOrientation) {
        let kind = format == .avif ? "AVIF" : "HEIC"
        guard let context = heif_context_alloc() else { throw ReceiptError(.badImage, file: file, "cannot decode \(kind): out of memory") }
        defer { heif_context_free(context) }
        let read = data.withUnsafeBytes { raw in
            heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil)
        }
        try check(read, kind: kind, file: file, doing: "read the file")

        var handle: OpaquePointer?
        try check(heif_context_get_primary_image_handle(context, &handle), kind: kind, file: file, doing: "find its primary image")
        guard let handle else { throw ReceiptError(.badImage, file: file, "corrupt \(kind) image: no primary image") }
        defer { heif_image_handle_release(handle) }

        let (w, h) = (Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)))
        guard w > 0, h > 0 else { throw ReceiptError(.badImage, file: file, "corrupt \(kind) image: it has no size") }
        guard w * h <= maxPixels else {
            throw ReceiptError(.tooLarge, file: file, String(format: "image is %d×%d pixels (%.1f megapixels), above the limit of %.1f megapixels", w, h, Double(w * h) / 1e6, Double(maxPixels) / 1e6), hint: .maxPixels)
        }
        let compression = format == .avif ? heif_compression_AV1 : heif_compression_HEVC
        guard heif_have_decoder_for_format(compression) != 0 else {
            let codec = format == .avif ? "AV1 (install libaom3 or libdav1d6)" : "HEVC (install libde265-0)"
            throw ReceiptError(.badImage, file: file, "cannot decode \(kind): libheif has no \(codec) decoder on this machine")
        }

        var decoded: OpaquePointer?
        try check(heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil),
                  kind: kind, file: file, doing: "decode it")
        guard let decoded else { throw ReceiptError(.badImage, file: file, "cannot decode \(kind) image data") }
        defer { heif_image_release(decoded) }

        let (width, height) = (Int(heif_image_get_width(decoded, heif_channel_interleaved)),
                               Int(heif_image_get_height(decoded, heif_channel_interleaved)))
        var rowBytes: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &rowBytes),
              let pix = pixCreate(Int32(width), Int32(height), 32) else {
            throw ReceiptError(.badImage, file: file, "cannot decode \(kind) image data")
        }
        let image = LeptonicaImage(taking: pix)
        // Leptonica keeps a pixel as one 32-bit word, red in the most significant byte.
        let words = Int(pixGetWpl(pix))
        guard let target = pixGetData(pix) else { throw ReceiptError(.badImage, file: file, "cannot decode \(kind): out of memory") }
        for y in 0..<height {
            let row = plane + y * Int(rowBytes)
            let out = target + y * words
            for x in 0..<width {
                let p = row + 3 * x
                out[x] = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8
            }
        }
        let orientation = hasTransformProperties(data) ? .up : exifOrientation(handle)
        return (image, width, height, orientation)
    }

    private static func exifOrientation(_ handle: OpaquePointer) -> ExifOrientation {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return .up }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 4, size < 1 << 20 else { return .up }
        var block = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_metadata(handle, id, &block).code == heif_error_Ok else { return .up }
        return ExifOrientation.read(heifExif: block)
    }

    /// Whether the file's `meta` box holds an `irot` or `imir` property (libheif applies those).
    static func hasTransformProperties(_ data: Data) -> Bool {
        let bytes = [UInt8](data.prefix(1 << 20))
        var i = 0
        while i + 8 <= bytes.count {
            var size = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let type = String(decoding: bytes[i + 4..<i + 8], as: UTF8.self)
            if size == 0 { size = bytes.count - i }
            guard size >= 8 else { return false }
            if type == "meta" {
                let meta = bytes[i..<min(bytes.count, i + size)]
                return contains(meta, "irot") || contains(meta, "imir")
            }
            i += size
        }
        return false
    }

    private static func contains(_ bytes: ArraySlice<UInt8>, _ tag: String) -> Bool {
        let t = Array(tag.utf8)
        guard bytes.count >= t.count else { return false }
        var i = bytes.startIndex
        while i + t.count <= bytes.endIndex {
            if bytes[i] == t[0], Array(bytes[i..<i + t.count]) == t { return true }
            i += 1
        }
        return false
    }

    private static func check(_ error: heif_error, kind: String, file: String, doing what: String) throws {
        guard error.code != heif_error_Ok else { return }
        let detail = error.message.map { String(cString: $0).trimmingCharacters(in: .whitespaces) } ?? "error \(error.code.rawValue)"
        if error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype {
            throw ReceiptError(.badImage, file: file, "unsupported \(kind): cannot \(what) (\(detail))")
        }
        throw ReceiptError(.badImage, file: file, "corrupt or truncated \(kind): cannot \(what) (\(detail))")
    }
}
