import Foundation
import ReceiptModel

/// Image formats recognised from their first bytes (never from the file name).
public enum ImageFormat: String, Sendable {
    case jpeg, png, tiff, webp, bmp, gif
    /// HEIC/HEIF (iPhone photos) and AVIF, through libheif.
    case heic, avif
    /// PDF, through poppler: the text layer read exactly, pages without text rendered and read.
    case pdf

    public var isSupported: Bool { true }

    /// The supported formats, for messages.
    public static let supportedNames = "JPEG, PNG, TIFF, WebP, BMP, GIF, HEIC/HEIF, AVIF, PDF"

    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .tiff: return "image/tiff"
        case .webp: return "image/webp"
        case .bmp: return "image/bmp"
        case .gif: return "image/gif"
        case .heic: return "image/heic"
        case .avif: return "image/avif"
        case .pdf: return "application/pdf"
        }
    }

    /// Sniffs the format from the magic bytes; nil when unknown.
    public static func sniff(_ data: Data) -> ImageFormat? {
        let b = [UInt8](data.prefix(32))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + magic.count && Array(b[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("BM".utf8)) { return .bmp }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("%PDF".utf8)) { return .pdf }
        if starts(Array("ftyp".utf8), at: 4), b.count >= 12 {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            if ["avif", "avis"].contains(brand) { return .avif }
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heic }
        }
        return nil
    }
}
