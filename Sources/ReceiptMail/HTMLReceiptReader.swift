import CHTMLParser
import Foundation
import ReceiptKit

/// Reads an e-mail's HTML body as a receipt, exactly (libxml2's HTML parser; nothing in the page
/// runs and nothing it names is fetched):
///
/// - schema.org `Order` / `Invoice` data first, where the sender embeds it: JSON-LD
///   (`<script type="application/ld+json">`) or microdata (`itemscope itemtype=…/Order`);
/// - and the page as printed rows: a table row is one row, its cells side by side (a label and
///   its amount); other blocks (paragraphs, headings, list items, `<br>`) end a row. A table
///   nested in a cell gives rows of its own. Hidden text (`display:none`, `hidden`: preheaders)
///   and scripts, styles and images are left out.
public enum HTMLReceiptReader {
    public struct Reading: Sendable, Equatable {
        public var rows: [[String]]
        public var structured: EReceipt.StructuredFields?
    }

    public static func read(html: String) -> Reading {
        let bytes = Array(html.utf8)
        guard !bytes.isEmpty else { return Reading(rows: [], structured: nil) }
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                receipts_html_parse($0, Int32(buffer.count))
            }
        }
        guard let document else { return Reading(rows: PlainTextReader.rows(html), structured: nil) }
        defer { receipts_html_free(document) }
        var walker = Walker()
        var node = receipts_html_first(document)
        while let current = node {
            walker.walk(current)
            node = receipts_html_next(current)
        }
        walker.rows.endRow()
        let structured = walker.jsonLD.lazy.compactMap(StructuredData.fields(jsonLD:)).first
            ?? walker.microdata.lazy.compactMap(StructuredData.fields(microdata:)).first
        return Reading(rows: walker.rows.rows, structured: structured)
    }

    typealias Node = OpaquePointer

    /// The element's name, lowercased (nil for text and other nodes).
    static func name(_ node: Node) -> String? {
        guard receipts_html_type(node) == Int32(RECEIPTS_HTML_ELEMENT), let name = receipts_html_name(node) else { return nil }
        return String(cString: name).lowercased()
    }

    static func attribute(_ node: Node, _ name: String) -> String? {
        guard let value = receipts_html_attribute(node, name) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }

    static func hasAttribute(_ node: Node, _ name: String) -> Bool {
        receipts_html_has_attribute(node, name) != 0
    }

    /// The text of the node and everything in it.
    static func textContent(_ node: Node) -> String {
        guard let text = receipts_html_text(node) else { return "" }
        defer { free(text) }
        return String(cString: text)
    }

    static func children(_ node: Node) -> [Node] {
        var list: [Node] = []
        var child = receipts_html_children(node)
        while let current = child {
            list.append(current)
            child = receipts_html_next(current)
        }
        return list
    }
}

/// Rows being built: text is gathered into the current line until a block ends it.
struct RowBuilder {
    var rows: [[String]] = []
    private var line = ""

    mutating func append(_ text: String) { line += text }

    mutating func endRow() {
        let text = Self.clean(line)
        line = ""
        if !text.isEmpty { rows.append([text]) }
    }

    mutating func add(_ row: [String]) {
        endRow()
        let cells = row.map(Self.clean).filter { !$0.isEmpty }
        if !cells.isEmpty { rows.append(cells) }
    }

    /// Runs of white space (no-break spaces, tabs, line breaks) as one space; invisible characters
    /// (zero-width spaces and joiners, soft hyphens, byte-order marks) removed.
    static func clean(_ text: String) -> String {
        var out = ""
        var space = false
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x034F: continue
            default: break
            }
            if CharacterSet.whitespacesAndNewlines.contains(scalar) {
                space = !out.isEmpty
                continue
            }
            if space { out.append(" ") }
            space = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}

/// Walks the parsed page once: rows, and the structured data met on the way.
private struct Walker {
    var rows = RowBuilder()
    var jsonLD: [String] = []
    var microdata: [JSONValue] = []

    static let skipped: Set<String> = ["script", "style", "head", "title", "noscript", "template", "svg", "img", "select",
                                       "object", "iframe", "video", "audio", "canvas", "map", "meta", "link", "input"]
    static let blocks: Set<String> = ["p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "section", "article",
                                      "header", "footer", "center", "blockquote", "pre", "hr", "dl", "dt", "dd", "address",
                                      "main", "nav", "form", "fieldset", "table", "caption", "tbody", "thead", "tfoot",
                                      "body", "html", "td", "th", "aside", "figure", "figcaption", "legend", "tr"]

    mutating func walk(_ node: HTMLReceiptReader.Node) {
        switch Int(receipts_html_type(node)) {
        case Int(RECEIPTS_HTML_TEXT), Int(RECEIPTS_HTML_CDATA):
            if let content = receipts_html_content(node) { rows.append(String(cString: content)) }
        case Int(RECEIPTS_HTML_ELEMENT):
            element(node)
        default:
            break
        }
    }

    private mutating func element(_ node: HTMLReceiptReader.Node) {
        guard let name = HTMLReceiptReader.name(node) else { return }
        if name == "script" {
            if HTMLReceiptReader.attribute(node, "type")?.lowercased().contains("ld+json") == true {
                jsonLD.append(HTMLReceiptReader.textContent(node))
            }
            return
        }
        if HTMLReceiptReader.hasAttribute(node, "itemscope"), HTMLReceiptReader.attribute(node, "itemprop") == nil {
            microdata.append(Microdata.item(node))
        }
        if Self.skipped.contains(name) || Self.isHidden(node) { return }
        switch name {
        case "br":
            rows.endRow()
        case "tr":
            row(node)
        default:
            let block = Self.blocks.contains(name)
            if block { rows.endRow() }
            for child in HTMLReceiptReader.children(node) { walk(child) }
            if block { rows.endRow() }
            // An inline element between two words still separates them when it is a cell-like
            // container without spaces around it ("<span>Total</span><span>£5</span>" is rare
            // and read as one word; nothing to do).
        }
    }

    /// A table row: its cells side by side when each is one line; a cell holding rows of its own
    /// (a nested table, several paragraphs) gives them one after another instead.
    private mutating func row(_ node: HTMLReceiptReader.Node) {
        rows.endRow()
        var cells: [[[String]]] = []
        for child in HTMLReceiptReader.children(node) {
            guard let name = HTMLReceiptReader.name(child) else { continue }
            guard name == "td" || name == "th", !Self.isHidden(child) else { continue }
            var inner = Walker()
            for grandchild in HTMLReceiptReader.children(child) { inner.walk(grandchild) }
            inner.rows.endRow()
            jsonLD += inner.jsonLD
            microdata += inner.microdata
            cells.append(inner.rows.rows)
        }
        if cells.allSatisfy({ $0.count <= 1 }) {
            // A cell holding a one-row table gives that row's cells (`<td><table><tr><td>Total</td>
            // <td>£15.75</td></tr></table></td>`: "Total" and "£15.75" side by side).
            rows.add(cells.flatMap { $0.first ?? [] })
        } else {
            for cell in cells {
                for row in cell { rows.add(row) }
            }
        }
    }

    /// `hidden`, or a style that hides (`display:none`, `visibility:hidden`, Outlook's `mso-hide:all`).
    static func isHidden(_ node: HTMLReceiptReader.Node) -> Bool {
        if HTMLReceiptReader.hasAttribute(node, "hidden") { return true }
        if HTMLReceiptReader.attribute(node, "aria-hidden") == "true",
           HTMLReceiptReader.textContent(node).trimmingCharacters(in: .whitespacesAndNewlines).count < 2 { return true }
        guard let style = HTMLReceiptReader.attribute(node, "style")?.lowercased().filter({ !$0.isWhitespace }) else { return false }
        return style.contains("display:none") || style.contains("visibility:hidden") || style.contains("mso-hide:all")
    }
}

/// Plain-text bodies (and HTML libxml2 cannot parse): a line is a row, its cells apart where two
/// or more spaces or a tab separate them.
enum PlainTextReader {
    static func rows(_ text: String) -> [[String]] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let cells = String(line).replacingOccurrences(of: "\t", with: "  ")
                .components(separatedBy: "  ").map(RowBuilder.clean).filter { !$0.isEmpty }
            return cells.isEmpty ? nil : cells
        }
    }
}
