import Foundation
import ReceiptKit

/// What a message becomes: each attachment that is a PDF or an image by its bytes (whatever its
/// declared type) is a receipt, forwarded messages' included; small images (logos, tracking
/// pixels: under 10 KB, or under 200 pixels on a side) are left out. A message with no receipt
/// attached is read from its body: the HTML part with the most amounts (else a plain-text one) as
/// an e-receipt. A message with neither still gives one e-receipt, which fails naming the message
/// ("no receipt in the message…"), so that nothing is dropped silently.
public struct MessageReceipts: Sendable {
    public struct Item: Sendable {
        public var data: Data
        /// The receipt's `filePath`: the attachment's name, or the message for its body.
        public var name: String
    }

    public var items: [Item]
    /// What was left out and why (`logo.png: 3 KB, 120×40 pixels`), for the message's row.
    public var skipped: [String]

    /// Images smaller than this many bytes are logos or tracking pixels, not receipts.
    public static let smallImageBytes = 10 * 1024
    /// Nor are images narrower or lower than this many pixels.
    public static let smallImageSide = 200

    public init(_ message: MIMEMessage) {
        var items: [Item] = [], skipped: [String] = []
        let sender = message.fromAddress ?? message.from ?? "unknown sender"
        let subject = message.subject ?? "(no subject)"
        for (index, part) in message.parts.enumerated() {
            guard let format = ImageFormat.sniff(part.data) else { continue }
            let name = part.filename ?? "part \(index + 1).\(format.rawValue)"
            if format != .pdf, let why = Self.tooSmall(part.data) {
                skipped.append("\(name): \(why)")
                continue
            }
            items.append(Item(data: part.data, name: "\(name) in \"\(subject)\" from \(sender)"))
        }
        if items.isEmpty {
            let reading = Self.body(of: message)
            let eReceipt = EReceipt(rows: reading.rows, structured: reading.structured, source: message.source)
            items.append(Item(data: eReceipt.data, name: "\"\(subject)\" from \(sender)"))
        }
        self.items = items
        self.skipped = skipped
    }

    /// Why an image is too small to be a receipt, or nil.
    static func tooSmall(_ data: Data) -> String? {
        let size = ImageDimensions.of(data)
        let kilobytes = (Double(data.count) / 1024).formatted(.number.precision(.fractionLength(0...1)))
        if data.count < smallImageBytes {
            return "\(kilobytes) KB" + (size.map { ", \($0.width)×\($0.height) pixels" } ?? "") + ": a logo or a tracking pixel, not a receipt"
        }
        if let size, min(size.width, size.height) < smallImageSide {
            return "\(size.width)×\(size.height) pixels: a logo or a banner, not a receipt"
        }
        return nil
    }

    /// The body read as rows: of the HTML parts, the one with the most amounts; else of the plain
    /// text parts. Parts that are images or PDFs are not bodies.
    static func body(of message: MIMEMessage) -> HTMLReceiptReader.Reading {
        let texts = message.parts.filter { $0.contentType.hasPrefix("text/") && ImageFormat.sniff($0.data) == nil }
        let html = texts.filter { $0.contentType == "text/html" }.map { HTMLReceiptReader.read(html: $0.text ?? String(decoding: $0.data, as: UTF8.self)) }
        let plain = texts.filter { $0.contentType == "text/plain" }.map {
            HTMLReceiptReader.Reading(rows: PlainTextReader.rows($0.text ?? String(decoding: $0.data, as: UTF8.self)), structured: nil)
        }
        func amounts(_ reading: HTMLReceiptReader.Reading) -> Int {
            (reading.structured?.total != nil ? 1000 : 0)
                + reading.rows.joined().filter { $0.range(of: #"\d[.,]\d{2}(?!\d)"#, options: .regularExpression) != nil }.count
        }
        let best = (html.max { amounts($0) < amounts($1) }).flatMap { amounts($0) > 0 ? $0 : nil }
            ?? (plain.max { amounts($0) < amounts($1) }).flatMap { amounts($0) > 0 ? $0 : nil }
        return best ?? html.first ?? plain.first ?? HTMLReceiptReader.Reading(rows: [], structured: nil)
    }
}

/// Pixel dimensions read from an image's header (PNG, GIF, JPEG, BMP, WebP), nil for other formats.
enum ImageDimensions {
    static func of(_ data: Data) -> (width: Int, height: Int)? {
        let b = [UInt8](data.prefix(64 * 1024))
        func be16(_ i: Int) -> Int { i + 1 < b.count ? Int(b[i]) << 8 | Int(b[i + 1]) : 0 }
        func be32(_ i: Int) -> Int { i + 3 < b.count ? be16(i) << 16 | be16(i + 2) : 0 }
        func le16(_ i: Int) -> Int { i + 1 < b.count ? Int(b[i]) | Int(b[i + 1]) << 8 : 0 }
        func le32(_ i: Int) -> Int { i + 3 < b.count ? le16(i) | le16(i + 2) << 16 : 0 }
        switch ImageFormat.sniff(data) {
        case .png: return b.count >= 24 ? (be32(16), be32(20)) : nil
        case .gif: return b.count >= 10 ? (le16(6), le16(8)) : nil
        case .bmp: return b.count >= 26 ? (le32(18), abs(Int(Int32(truncatingIfNeeded: le32(22))))) : nil
        case .webp:
            guard b.count >= 30 else { return nil }
            switch String(decoding: b[12..<16], as: UTF8.self) {
            case "VP8 ": return (le16(26) & 0x3FFF, le16(28) & 0x3FFF)
            case "VP8L": let bits = le32(21); return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            case "VP8X": return ((le32(24) & 0xFFFFFF) + 1, (le32(27) & 0xFFFFFF) + 1)
            default: return nil
            }
        case .jpeg:
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { return nil }
                let marker = b[i + 1]
                if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    return (be16(i + 7), be16(i + 5))
                }
                i += 2 + be16(i + 2)
            }
            return nil
        default:
            return nil
        }
    }
}
