import CTesseract
import Foundation

/// An image's pixels in Swift memory: 8-bit, 1 channel (gray) or 3 (red, green, blue), row by row.
/// What the neural reader samples its inputs from.
package struct Raster: Sendable {
    package let width: Int
    package let height: Int
    package let channels: Int
    package let pixels: [UInt8]

    package init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(channels == 1 || channels == 3, "a raster is gray or RGB")
        precondition(pixels.count == width * height * channels, "a raster needs width × height × channels bytes")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// The pixels of a Leptonica image: 32-bit images as RGB (or gray when `gray`), anything else
    /// as 8-bit gray. Nil when Leptonica cannot convert it.
    package init?(_ image: LeptonicaImage, gray: Bool = false) {
        var source = image
        if pixGetColormap(source.pix) != nil,
           let plain = source.transformed({ pixRemoveColormap($0, Int32(REMOVE_CMAP_BASED_ON_SRC)) }) {
            source = plain
        }
        if source.depth == 32 && gray, let converted = source.transformed({ pixConvertRGBToLuminance($0) }) {
            source = converted
        }
        if source.depth != 8 && source.depth != 32 {
            guard let converted = source.transformed({ pixConvertTo8($0, 0) }) else { return nil }
            source = converted
        }
        let (w, h) = (source.width, source.height)
        guard w > 0, h > 0, let data = pixGetData(source.pix) else { return nil }
        let wpl = Int(pixGetWpl(source.pix))
        let channels = source.depth == 32 ? 3 : 1
        var pixels = [UInt8](repeating: 0, count: w * h * channels)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                let line = data + y * wpl
                if channels == 3 {
                    // A 32-bit pixel is one word: red in the top byte, then green, blue, alpha.
                    for x in 0..<w {
                        let word = line[x], o = (y * w + x) * 3
                        out[o] = UInt8(truncatingIfNeeded: word >> 24)
                        out[o + 1] = UInt8(truncatingIfNeeded: word >> 16)
                        out[o + 2] = UInt8(truncatingIfNeeded: word >> 8)
                    }
                } else {
                    // Four 8-bit pixels a word, the first in the top byte.
                    for x in 0..<w {
                        out[y * w + x] = UInt8(truncatingIfNeeded: line[x >> 2] >> (24 - 8 * UInt32(x & 3)))
                    }
                }
            }
        }
        self.init(width: w, height: h, channels: channels, pixels: pixels)
    }

    /// The raster's top `rows` rows.
    package func top(_ rows: Int) -> Raster {
        let rows = max(1, min(height, rows))
        return Raster(width: width, height: rows, channels: channels, pixels: Array(pixels.prefix(width * rows * channels)))
    }

    /// Channel `c` (0 red, 1 green, 2 blue; gray for all three in a gray raster) at (x, y).
    @inline(__always) package func value(_ x: Int, _ y: Int, _ c: Int) -> UInt8 {
        pixels[(y * width + x) * channels + (channels == 3 ? c : 0)]
    }

    /// Bilinear sample of channel `c` at a point in pixel coordinates (pixel centres at +0.5),
    /// clamped to the image's edge.
    @inline(__always) package func sample(_ px: Double, _ py: Double, _ c: Int) -> Float {
        let fx = min(max(px - 0.5, 0), Double(width - 1)), fy = min(max(py - 0.5, 0), Double(height - 1))
        let x0 = Int(fx), y0 = Int(fy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let ax = Float(fx - Double(x0)), ay = Float(fy - Double(y0))
        let top = Float(value(x0, y0, c)) * (1 - ax) + Float(value(x1, y0, c)) * ax
        let bottom = Float(value(x0, y1, c)) * (1 - ax) + Float(value(x1, y1, c)) * ax
        return top * (1 - ay) + bottom * ay
    }
}
