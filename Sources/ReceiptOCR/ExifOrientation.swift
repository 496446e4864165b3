import Foundation
import ReceiptModel

/// EXIF orientation (tag 0x0112) of a JPEG: how the stored pixels must be turned to show upright.
package enum ExifOrientation: Int {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Reads the orientation from a JPEG's APP1 Exif segment; `.up` when absent or unreadable.
    package static func read(jpeg data: Data) -> ExifOrientation {
        let bytes = [UInt8](data.prefix(256 * 1024))
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return .up }
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if marker == 0xD9 || marker == 0xDA { break }          // end of image / start of scan
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2 else { break }
            let segment = i + 4
            if marker == 0xE1, segment + 6 <= bytes.count,
               Array(bytes[segment..<segment + 6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {   // "Exif\0\0"
                return parseTIFF(bytes, start: segment + 6, end: min(bytes.count, i + 2 + length)) ?? .up
            }
            i += 2 + length
        }
        return .up
    }

    /// Reads the orientation from a HEIF `Exif` metadata block (a 4-byte offset, then the TIFF
    /// header); `.up` when absent or unreadable.
    package static func read(heifExif block: [UInt8]) -> ExifOrientation {
        guard block.count > 4 else { return .up }
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        let start = 4 + offset
        guard start >= 4, start < block.count else { return .up }
        return parseTIFF(block, start: start, end: block.count) ?? .up
    }

    private static func parseTIFF(_ b: [UInt8], start: Int, end: Int) -> ExifOrientation? {
        guard start + 8 <= end else { return nil }
        let little: Bool
        switch (b[start], b[start + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ o: Int) -> Int? {
            guard o + 2 <= end else { return nil }
            return little ? Int(b[o]) | Int(b[o + 1]) << 8 : Int(b[o]) << 8 | Int(b[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let lo = u16(little ? o : o + 2), let hi = u16(little ? o + 2 : o) else { return nil }
            return hi << 16 | lo
        }
        guard let ifd = u32(start + 4), let count = u16(start + ifd) else { return nil }
        for n in 0..<min(count, 256) {
            let entry = start + ifd + 2 + n * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, let value = u16(entry + 8) {
                return ExifOrientation(rawValue: value)
            }
        }
        return nil
    }
}
