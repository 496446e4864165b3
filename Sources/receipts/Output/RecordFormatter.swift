import Foundation
import ReceiptKit

/// Formats a whole list of JSON records (ordered objects) in the four `OutputFormat`s, for the store
/// commands (`list`, `expenses`, `export`); `RecordWriter` streams records one by one for `process`.
/// Unlike `RecordWriter`'s fixed widths, table columns here are sized to their widest cell. Numbers keep their exact
/// text (money stays `23.45`). For csv and table, `columns` are the keys to show, in order; a
/// dotted key reaches into nested objects (`analysis.total`). Nested objects and arrays in a cell
/// are written as compact JSON, null as an empty cell.
struct RecordFormatter: Sendable {
    var format: OutputFormat
    var columns: [String]
    /// Widest a table cell may be before it is cut with `…`.
    var maxTableWidth = 48

    init(format: OutputFormat, columns: [String]) {
        self.format = format
        self.columns = columns
    }

    /// The whole output for these records.
    func render(_ records: [JSONValue]) -> String {
        switch format {
        case .ndjson:
            return records.map { $0.serialized() + "\n" }.joined()
        case .json:
            return JSONValue.array(records).prettySerialized() + "\n"
        case .csv:
            return ([csvHeader()] + records.map(csvRow)).map { $0 + "\r\n" }.joined()
        case .table:
            return table(records)
        }
    }

    // MARK: Cells

    static func value(_ record: JSONValue, at path: String) -> JSONValue {
        if let direct = record[path] { return direct }
        var current = record
        for key in path.split(separator: ".") {
            guard let next = current[String(key)] else { return .null }
            current = next
        }
        return current
    }

    static func cell(_ value: JSONValue) -> String { CSV.text(value) }

    // MARK: CSV (RFC 4180)

    func csvHeader() -> String { columns.map(Self.csvField).joined(separator: ",") }

    func csvRow(_ record: JSONValue) -> String {
        columns.map { Self.csvField(Self.cell(Self.value(record, at: $0))) }.joined(separator: ",")
    }

    /// RFC 4180 quoting, and cells a spreadsheet would run as formulas defused (`CSV.field`).
    static func csvField(_ text: String) -> String { CSV.field(text) }

    // MARK: Table

    /// Columns holding a file path (shortened from the left in a table: its end tells files apart)
    /// and an error (shown without the path it starts with, which the path column has).
    static let pathColumns: Set = ["filePath", "receiptFile", "file"]
    static let errorColumns: Set = ["lastError", "error"]

    func table(_ records: [JSONValue]) -> String {
        let rows = records.map { record in
            columns.map { column -> String in
                let text = Self.cell(Self.value(record, at: column))
                if Self.pathColumns.contains(column) { return RecordWriter.shortenFromLeft(text, maxTableWidth) }
                if Self.errorColumns.contains(column) {
                    let file = Self.pathColumns.lazy.compactMap { record[$0]?.stringValue }.first ?? ""
                    return Self.tableCell(RecordWriter.withoutFile(text, file: file), max: maxTableWidth)
                }
                return Self.tableCell(text, max: maxTableWidth)
            }
        }
        var widths = columns.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        // No trailing blanks: padding that runs past a narrow terminal wraps into an empty line.
        func line(_ cells: [String]) -> String {
            var text = cells.enumerated().map { i, cell in
                i == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text + "\n"
        }
        var out = line(columns.map { $0.uppercased() })
        for row in rows { out += line(row) }
        return out
    }

    static func tableCell(_ text: String, max: Int) -> String {
        let flat = text.oneLine
        return flat.count > max ? String(flat.prefix(max - 1)) + "…" : flat
    }
}

