import Foundation
import ReceiptModel

/// Finds the JSON object in what a model wrote: the whole text, a fenced code block
/// (```` ```json … ``` ````), or the first balanced `{…}` in prose. `<think>…</think>` blocks
/// that some reasoning models emit are ignored.
package enum ModelAnswer {
    package static func jsonObject(in text: String) -> JSONValue? {
        var text = text
        while let open = text.range(of: "<think>"), let close = text.range(of: "</think>", range: open.upperBound..<text.endIndex) {
            text.removeSubrange(open.lowerBound..<close.upperBound)
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let value = object(from: trimmed) { return value }
        for block in fencedBlocks(in: trimmed) {
            if let value = object(from: block) { return value }
        }
        return firstBalancedObject(in: trimmed)
    }

    /// An object, or the single object of a one-element array.
    private static func object(from text: String) -> JSONValue? {
        guard let value = try? JSONValue.parse(text) else { return nil }
        if value.objectValue != nil { return value }
        if let items = value.arrayValue, items.count == 1, items[0].objectValue != nil { return items[0] }
        return nil
    }

    private static func fencedBlocks(in text: String) -> [String] {
        var blocks: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "```") {
            var start = open.upperBound
            // Skip the info string (`json`) up to the end of the line.
            if let newline = rest[start...].firstIndex(of: "\n") { start = rest.index(after: newline) } else { break }
            guard let close = rest[start...].range(of: "```") else { break }
            blocks.append(String(rest[start..<close.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines))
            rest = rest[close.upperBound...]
        }
        return blocks
    }

    private static func firstBalancedObject(in text: String) -> JSONValue? {
        let bytes = Array(text.utf8)
        var tried = 0
        var start = 0
        while start < bytes.count, tried < 20 {
            guard let open = bytes[start...].firstIndex(of: UInt8(ascii: "{")) else { return nil }
            tried += 1
            var depth = 0
            var inString = false
            var escaped = false
            var end: Int?
            for i in open..<bytes.count {
                let b = bytes[i]
                if inString {
                    if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                    continue
                }
                if b == UInt8(ascii: "\"") { inString = true }
                else if b == UInt8(ascii: "{") { depth += 1 }
                else if b == UInt8(ascii: "}") {
                    depth -= 1
                    if depth == 0 { end = i; break }
                }
            }
            if let end, let value = try? JSONValue.parse(Array(bytes[open...end])), value.objectValue != nil {
                return value
            }
            start = open + 1
        }
        return nil
    }
}
