import Foundation
import ReceiptKit

/// Output formats for records (one JSON object per receipt, expense, …).
enum OutputFormat: String, CaseIterable, Sendable {
    case ndjson, json, csv, table

    /// NDJSON when stdout is a pipe or file, a table on a terminal.
    static var automatic: OutputFormat { isatty(STDOUT_FILENO) != 0 ? .table : .ndjson }
}

/// A column of CSV and table output: a header and the key path into the record.
struct Column: Sendable {
    var header: String
    var path: [String]
    /// Table width in characters (values are cut to fit).
    var width: Int

    init(_ header: String, _ path: String, width: Int = 12) {
        self.header = header
        self.path = path.split(separator: ".").map(String.init)
        self.width = width
    }

    func value(in record: JSONValue) -> String {
        var current: JSONValue? = record
        for key in path { current = current?[key] }
        switch current {
        case nil, .null?: return ""
        case let .string(s)?: return s
        case let .number(n)?: return n
        case let .bool(b)?: return b ? "true" : "false"
        case let value?: return value.serialized()
        }
    }
}

/// Writes records to stdout as they come, in one of the output formats. Each record is flushed at
/// once, so a consumer sees a receipt as soon as it is done.
///
/// In a table, a file path is shown relative to the folder it was found in (`baseFolders`, the
/// folders the user named) and, when still too long, shortened from the left (`…/uk-fuel.jpg`):
/// the end of a path is what tells receipts apart. An error is shown without the path it starts
/// with (the file column has it), so its cause fits.
final class RecordWriter {
    private let format: OutputFormat
    private let columns: [Column]
    private let baseFolders: [String]
    private var count = 0
    private let out = FileHandle.standardOutput

    init(format: OutputFormat, columns: [Column], baseFolders: [String] = []) {
        self.format = format
        self.columns = columns
        var folders: [String] = []
        for path in baseFolders {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                folders.append(path.hasSuffix("/") ? path : path + "/")
            }
        }
        self.baseFolders = folders
    }

    func begin() {
        switch format {
        case .csv: emit(columns.map { Self.csvField($0.header) }.joined(separator: ",") + "\n")
        case .table: emit(tableLine(columns.map { $0.header.uppercased() }))
        case .json: emit("[")
        case .ndjson: break
        }
    }

    func write(_ record: JSONValue) {
        switch format {
        case .ndjson: emit(record.serialized() + "\n")
        case .json:
            emit((count == 0 ? "\n" : ",\n") + record.prettySerialized().split(separator: "\n", omittingEmptySubsequences: false)
                .map { "  " + $0 }.joined(separator: "\n"))
        case .csv: emit(columns.map { Self.csvField($0.value(in: record)) }.joined(separator: ",") + "\n")
        case .table: emit(tableLine(columns.map { tableCell($0, record) }))
        }
        count += 1
    }

    private func tableCell(_ column: Column, _ record: JSONValue) -> String {
        let value = column.value(in: record)
        switch column.path.last {
        case "file":
            let relative = baseFolders.first(where: value.hasPrefix).map { String(value.dropFirst($0.count)) } ?? value
            return Self.shortenFromLeft(relative, column.width)
        case "error":
            return Self.withoutFile(value, file: Column("", "file").value(in: record))
        default:
            return value
        }
    }

    /// `path` cut from the left to `width` characters: `…/TestReceipts/uk-fuel-unleaded.jpg`.
    static func shortenFromLeft(_ path: String, _ width: Int) -> String {
        let flat = path.oneLine
        guard flat.count > width, width > 1 else { return flat }
        return "…" + String(flat.suffix(width - 1))
    }

    /// An error without the `<file>: ` it starts with.
    static func withoutFile(_ error: String, file: String) -> String {
        guard !file.isEmpty else { return error }
        if error.hasPrefix(file + ": ") { return String(error.dropFirst(file.count + 2)) }
        // The file named another way (absolute, or where the same bytes were first read): its path
        // ending in the same name, before the cause.
        let name = "/" + (file as NSString).lastPathComponent + ": "
        if let range = error.range(of: name), !error[..<range.lowerBound].contains(": ") { return String(error[range.upperBound...]) }
        return error
    }

    func end() {
        if format == .json { emit(count == 0 ? "]\n" : "\n]\n") }
    }

    /// One table line: each cell cut or padded to its column's width, without trailing blanks. A
    /// row padded to the table's full width (170 characters) wraps on a narrower terminal, and its
    /// trailing padding then shows as an empty line between rows. The last column (a failed
    /// receipt's error) is never cut: its cause wraps onto lines of its own under the column.
    private func tableLine(_ cells: [String]) -> String {
        guard let last = columns.last, let lastCell = cells.last else { return "\n" }
        let wrapped = Self.wrap(lastCell, width: last.width)
        let indent = String(repeating: " ", count: columns.dropLast().reduce(0) { $0 + $1.width + 2 })
        var lines: [String] = []
        for (i, piece) in wrapped.enumerated() {
            var line = i == 0 ? (zip(columns.dropLast(), cells).map { Self.pad($1, $0.width) } + [piece]).joined(separator: "  ") : indent + piece
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` on one line, broken into lines of at most `width` characters between words (a word
    /// longer than that is broken where it must be); at least one line.
    static func wrap(_ text: String, width: Int) -> [String] {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        guard flat.count > width, width > 0 else { return [flat] }
        var lines: [String] = [], line = ""
        for word in flat.split(separator: " ", omittingEmptySubsequences: true) {
            var word = Substring(word)
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            while word.count > width {
                if !line.isEmpty { lines.append(line); line = "" }
                lines.append(String(word.prefix(width)))
                word = word.dropFirst(width)
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.isEmpty ? [""] : lines
    }

    private func emit(_ text: String) {
        out.write(Data(text.utf8))
    }

    static func csvField(_ value: String) -> String { CSV.field(value) }

    static func pad(_ value: String, _ width: Int) -> String {
        let flat = value.replacingOccurrences(of: "\n", with: " ")
        if flat.count > width { return String(flat.prefix(max(1, width - 1))) + "…" }
        return flat + String(repeating: " ", count: width - flat.count)
    }
}
