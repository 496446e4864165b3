import CQREncode
import Foundation

/// A QR code of a link (libqrencode): an invitation for a phone's camera, printed in a terminal by
/// `receipts user invite` or drawn on the account page as SVG.
public struct QRCode: Sendable {
    /// Modules by row, true for dark.
    public let modules: [[Bool]]

    /// The code of `text` at error correction level M (15 %: a screen photographed at an angle);
    /// nil when it does not fit a QR code.
    public init?(_ text: String) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
        modules = (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    public var size: Int { modules.count }

    /// The code in a terminal: two rows a line with half blocks (`▀`, `▄`, `█`), dark on light, with
    /// the four-module quiet zone a reader needs. Light modules are the blocks, drawn white on
    /// black (ANSI colours), so it reads the same on a dark or a light terminal.
    public var terminalText: String {
        let quiet = 4, width = size + 2 * quiet
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (cx, cy) = (x - quiet, y - quiet)
            return cx >= 0 && cy >= 0 && cx < size && cy < size && modules[cy][cx]
        }
        var lines: [String] = []
        for y in stride(from: 0, to: width, by: 2) {
            var line = ""
            for x in 0..<width {
                // A light module is drawn (the block's colour), a dark one left as the background.
                switch (!dark(x, y), y + 1 < width && !dark(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append("\u{1B}[97;40m" + line + "\u{1B}[0m")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The code as an SVG drawing (`pixels` wide), dark on white with the quiet zone: one path.
    public func svg(pixels: Int = 264, label: String = "QR code") -> String {
        let quiet = 4, width = size + 2 * quiet
        var path = ""
        for (y, row) in modules.enumerated() {
            for (x, dark) in row.enumerated() where dark { path += "M\(x + quiet) \(y + quiet)h1v1h-1z" }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(width)" width="\(pixels)" height="\(pixels)" \
            shape-rendering="crispEdges" role="img" aria-label="\(HTML.escape(label))"><rect width="\(width)" height="\(width)" fill="#fff"/>\
            <path fill="#000" d="\(path)"/></svg>
            """
    }
}
