import Foundation

/// CSV as RFC 4180 writes it, for a spreadsheet or an accountant: one place for the rules, used by
/// `receipts process|list|expenses|export --format csv` and `GET /v1/expenses/export.csv`.
public enum CSV {
    /// A cell: quoted when it holds a comma, a quote or a line break; a text starting with
    /// = + - @ that is not a number is prefixed with ' so a spreadsheet does not run it as a formula.
    public static func field(_ text: String) -> String {
        var cell = text
        if let first = cell.first, "=+-@".contains(first), Decimal(string: cell) == nil { cell = "'" + cell }
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A JSON value as cell text: numbers keep their exact text (money stays `23.45`), null is
    /// empty, objects and arrays are compact JSON.
    public static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case let .bool(b): return b ? "true" : "false"
        case let .number(n): return n
        case let .string(s): return s
        case .array, .object: return value.serialized()
        }
    }

    /// A header row and one row per record (`columns` are the records' keys), lines ended by CRLF.
    public static func document(_ records: [JSONValue], columns: [String]) -> String {
        var out = columns.map(field).joined(separator: ",") + "\r\n"
        for record in records {
            out += columns.map { field(text(record[$0] ?? .null)) }.joined(separator: ",") + "\r\n"
        }
        return out
    }
}
