/// The review page's icon, drawn here from a few shapes: served as SVG (`/assets/icon.svg`, the
/// browser tab's) and as PNG made from the same shapes (`/assets/icon-SIZE.png`, the home screen's:
/// iOS takes only PNG for `apple-touch-icon`, Android's installed app wants 192 and 512). A white
/// receipt with a zigzag tear on the page's blue; `maskable` fills the whole square (Android cuts
/// its own shape out of it; the receipt is inside the middle 80 %, its safe zone).
enum WebIcon {
    /// The sizes served as PNG.
    static let sizes = [180, 192, 512]

    static let blue = RGBA(0x3B, 0x7D, 0xD8)
    static let paper = RGBA(0xFF, 0xFF, 0xFF)
    static let ink = RGBA(0x9D, 0xB4, 0xD6)
    static let total = RGBA(0x1F, 0x3D, 0x66)

    struct RGBA: Equatable {
        var r, g, b: UInt8
        var a: UInt8 = 255
        init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) { (self.r, self.g, self.b, self.a) = (r, g, b, a) }
        var hex: String { "#" + [r, g, b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
    }

    /// The receipt's outline, in a square of 512: straight sides and top, a torn bottom of six teeth.
    static let receipt: [(Double, Double)] = {
        let (left, right, top, bottom, tooth) = (148.0, 364.0, 96.0, 392.0, 24.0)
        var points = [(left, top), (right, top), (right, bottom + tooth)]
        let teeth = 6, width = (right - left) / Double(teeth)
        for i in stride(from: teeth - 1, through: 0, by: -1) {
            points.append((left + (Double(i) + 0.5) * width, bottom))
            points.append((left + Double(i) * width, bottom + tooth))
        }
        return points
    }()
    /// The printed lines: three of items, one bold total.
    static let lines: [(x: Double, y: Double, width: Double, height: Double, color: RGBA)] = [
        (184, 150, 144, 20, ink), (184, 198, 100, 20, ink), (184, 246, 144, 20, ink), (184, 318, 144, 30, total),
    ]
    static let corner = 112.0

    static func svg(maskable: Bool = false) -> String {
        let background = maskable ? "<rect width=\"512\" height=\"512\" fill=\"\(blue.hex)\"/>"
            : "<rect width=\"512\" height=\"512\" rx=\"\(Int(corner))\" fill=\"\(blue.hex)\"/>"
        let outline = receipt.map { "\(Int($0.0)),\(Int($0.1))" }.joined(separator: " ")
        let printed = lines.map { "<rect x=\"\(Int($0.x))\" y=\"\(Int($0.y))\" width=\"\(Int($0.width))\" height=\"\(Int($0.height))\" fill=\"\($0.color.hex)\"/>" }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">\(background)\
            <polygon points="\(outline)" fill="\(paper.hex)"/>\(printed.joined())</svg>

            """
    }

    /// The colour at a point of the 512 square (nil: transparent).
    static func color(_ x: Double, _ y: Double, maskable: Bool) -> RGBA? {
        if !maskable {
            // Outside the rounded corners.
            let cx = min(max(x, corner), 512 - corner), cy = min(max(y, corner), 512 - corner)
            if (x - cx) * (x - cx) + (y - cy) * (y - cy) > corner * corner { return nil }
        }
        for line in lines where x >= line.x && x < line.x + line.width && y >= line.y && y < line.y + line.height {
            return line.color
        }
        return inside(x, y, receipt) ? paper : blue
    }

    /// Even-odd rule.
    static func inside(_ x: Double, _ y: Double, _ polygon: [(Double, Double)]) -> Bool {
        var isInside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let (xi, yi) = polygon[i], (xj, yj) = polygon[j]
            if (yi > y) != (yj > y), x < (xj - xi) * (y - yi) / (yj - yi) + xi { isInside.toggle() }
            j = i
        }
        return isInside
    }

    /// The icon as a PNG of `size` × `size` pixels, each the average of 4 × 4 samples.
    static func png(size: Int, maskable: Bool = false) -> [UInt8] {
        let samples = 4
        let scale = 512 / Double(size * samples)
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        for py in 0..<size {
            for px in 0..<size {
                var (r, g, b, a) = (0, 0, 0, 0)
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        let x = (Double(px * samples + sx) + 0.5) * scale, y = (Double(py * samples + sy) + 0.5) * scale
                        guard let c = color(x, y, maskable: maskable) else { continue }
                        r += Int(c.r); g += Int(c.g); b += Int(c.b); a += 255
                    }
                }
                let covered = a / 255, at = (py * size + px) * 4
                if covered > 0 {
                    pixels[at] = UInt8(r / covered); pixels[at + 1] = UInt8(g / covered); pixels[at + 2] = UInt8(b / covered)
                    pixels[at + 3] = UInt8(a / (samples * samples))
                }
            }
        }
        return PNG.encode(rgba: pixels, width: size, height: size)
    }
}

/// A PNG encoder small enough to read: 8-bit RGBA, each row filtered by Sub (flat areas become
/// zeros), deflated with the fixed Huffman code and runs of a repeated byte as matches at distance 1.
enum PNG {
    static func encode(rgba: [UInt8], width: Int, height: Int) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (width * 4 + 1))
        for y in 0..<height {
            raw.append(1)  // Sub
            let row = y * width * 4
            for i in 0..<(width * 4) {
                raw.append(rgba[row + i] &- (i >= 4 ? rgba[row + i - 4] : 0))
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 6, 0, 0, 0], into: &png)
        chunk("IDAT", zlib(raw), into: &png)
        chunk("IEND", [], into: &png)
        return png
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8], into png: inout [UInt8]) {
        let body = Array(type.utf8) + data
        png += bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// A zlib stream of one final deflate block with the fixed Huffman code.
    static func zlib(_ data: [UInt8]) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman
        var i = 0
        while i < data.count {
            var run = 0
            if i > 0 { while run < 258, i + run < data.count, data[i + run] == data[i - 1] { run += 1 } }
            if run >= 3 {
                bits.length(run)
                bits.huffman(0, count: 5)  // distance code 0: distance 1
                i += run
            } else {
                bits.literal(Int(data[i]))
                i += 1
            }
        }
        bits.literal(256)  // end of block
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return [0x78, 0x01] + bits.bytes() + bigEndian(b << 16 | a)
    }

    struct BitWriter {
        private var out: [UInt8] = []
        private var buffer: UInt32 = 0
        private var filled: UInt32 = 0

        /// `count` bits of `value`, least significant first (deflate's order for everything but codes).
        mutating func write(_ value: Int, count: Int) {
            buffer |= UInt32(value) << filled
            filled += UInt32(count)
            while filled >= 8 { out.append(UInt8(buffer & 0xFF)); buffer >>= 8; filled -= 8 }
        }

        /// A Huffman code: most significant bit first.
        mutating func huffman(_ code: Int, count: Int) {
            var reversed = 0
            for k in 0..<count where code & (1 << k) != 0 { reversed |= 1 << (count - 1 - k) }
            write(reversed, count: count)
        }

        /// A literal byte or end of block (0–287) in the fixed code.
        mutating func literal(_ value: Int) {
            switch value {
            case 0...143: huffman(0x30 + value, count: 8)
            case 144...255: huffman(0x190 + value - 144, count: 9)
            case 256...279: huffman(value - 256, count: 7)
            default: huffman(0xC0 + value - 280, count: 8)
            }
        }

        static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
        static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]

        /// A match length (3–258): its code, then its extra bits.
        mutating func length(_ length: Int) {
            let index = Self.lengthBases.lastIndex { $0 <= length }!
            literal(257 + index)
            if Self.lengthExtra[index] > 0 { write(length - Self.lengthBases[index], count: Self.lengthExtra[index]) }
        }

        mutating func bytes() -> [UInt8] {
            if filled > 0 { out.append(UInt8(buffer & 0xFF)); buffer = 0; filled = 0 }
            return out
        }
    }
}
