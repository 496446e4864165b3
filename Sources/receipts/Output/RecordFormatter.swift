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

    static func cell(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case let .bool(b): return b ? "true" : "false"
        case let .number(n): return n
        case let .string(s): return s
        case .array, .object: return value.serialized()
        }
    }

    // MARK: CSV (RFC 4180)

    func csvHeader() -> String { columns.map(Self.csvField).joined(separator: ",") }

    func csvRow(_ record: JSONValue) -> String {
        columns.map { Self.csvField(Self.cell(Self.value(record, at: $0))) }.joined(separator: ",")
    }

    /// RFC 4180 quoting, and cells a spreadsheet would run as formulas defused (as `RecordWriter` does).
    static func csvField(_ text: String) -> String { RecordWriter.csvField(text) }

    // MARK: Table

    func table(_ records: [JSONValue]) -> String {
        let rows = records.map { record in
            columns.map { Self.tableCell(Self.cell(Self.value(record, at: $0)), max: maxTableWidth) }
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

