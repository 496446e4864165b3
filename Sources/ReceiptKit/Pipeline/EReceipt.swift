import Foundation

/// An e-receipt: a receipt that arrived as an e-mail's HTML (or plain text) body, with no PDF or
/// image attached. What the mail reader made of the body is kept as the receipt's bytes (a JSON
/// document; see `data`) and read without OCR, like a PDF's text layer: its rows are an exact
/// reading (a table row is a printed row, its label and amount cells side by side), and the
/// fields the sender embedded as schema.org data (JSON-LD or microdata) are taken as they are.
///
/// The raw message is kept beside it (the mail store's `.eml`), so the document can be made again.
public struct EReceipt: Sendable, Equatable {
    /// The rows of the body, each a list of cells (one cell for a line of text).
    public var rows: [[String]]
    /// Fields the sender embedded as structured data, nil when none.
    public var structured: StructuredFields?
    /// The message the body came from.
    public var source: ReceiptSource

    public init(rows: [[String]], structured: StructuredFields? = nil, source: ReceiptSource) {
        self.rows = rows
        self.structured = structured
        self.source = source
    }

    /// Fields read from schema.org `Order` / `Invoice` data; each nil when the sender gave none.
    public struct StructuredFields: Sendable, Equatable {
        public var vendor: String?
        public var date: CalendarDate?
        public var total: Decimal?
        public var tax: Decimal?
        public var currency: String?
        /// `Order` or `Invoice`, and where it was read (`json-ld`, `microdata`).
        public var kind: String

        public init(vendor: String? = nil, date: CalendarDate? = nil, total: Decimal? = nil, tax: Decimal? = nil,
                    currency: String? = nil, kind: String) {
            self.vendor = vendor
            self.date = date
            self.total = total
            self.tax = tax
            self.currency = currency
            self.kind = kind
        }

        public var isEmpty: Bool { vendor == nil && date == nil && total == nil && tax == nil && currency == nil }

        var json: JSONValue {
            .object([
                ("kind", .string(kind)), ("vendor", .optionalString(vendor)), ("date", .optionalString(date?.description)),
                ("total", .optionalString(total?.plainString)), ("tax", .optionalString(tax?.plainString)),
                ("currency", .optionalString(currency)),
            ])
        }

        init?(json: JSONValue?) {
            guard let json, let kind = json["kind"]?.stringValue else { return nil }
            self.init(vendor: json["vendor"]?.stringValue, date: json["date"]?.stringValue.flatMap(CalendarDate.init(iso:)),
                      total: json["total"]?.decimalValue, tax: json["tax"]?.decimalValue,
                      currency: json["currency"]?.stringValue, kind: kind)
        }
    }

    // MARK: The stored document

    /// The first bytes of every stored e-receipt: how a worker tells it from an image.
    static let signature = Data(#"{"format":"receipts-e-receipt""#.utf8)

    /// The document kept as the receipt's bytes: deterministic (the same body gives the same bytes,
    /// so the same e-receipt is one receipt).
    public var data: Data {
        let json = JSONValue.object([
            ("format", .string("receipts-e-receipt")),
            ("version", .int(1)),
            ("source", source.json),
            ("structured", structured.map(\.json) ?? .null),
            ("rows", .array(rows.map { .array($0.map(JSONValue.string)) })),
        ])
        return Data(json.serialized().utf8)
    }

    /// Reads a stored e-receipt; nil for anything else (an image, a PDF).
    public init?(data: Data) {
        guard data.starts(with: Self.signature), let json = try? JSONValue.parse(String(decoding: data, as: UTF8.self)),
              let source = json["source"].flatMap(ReceiptSource.init(json:)) else { return nil }
        let rows = (json["rows"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue) }
        self.init(rows: rows, structured: StructuredFields(json: json["structured"]), source: source)
    }

    // MARK: Reading

    /// Whether the rows hold an amount (digits with two decimals, `12.50` or `12,50`): a body
    /// without one is not a receipt.
    public var hasAmounts: Bool {
        if let structured, structured.total != nil { return true }
        return rows.joined().contains { $0.range(of: #"\d[.,]\d{2}(?!\d)"#, options: .regularExpression) != nil }
    }

    /// Character cells of the page the rows are laid out on (the boxes of the reading).
    public static let cellWidth = 10, lineHeight = 28, wordHeight = 18, rightEdge = 48

    /// The rows as an exact reading (confidence 100): each row a line, its words in boxes on a
    /// grid of character cells; a row of several cells has its last cell (the amount) ending at
    /// the page's right edge, the others from the left, as a printed receipt sets them.
    public func reading() -> OCRResult {
        var lines: [OCRLine] = []
        var widest = Self.rightEdge
        for row in rows {
            let cells = row.map { $0.split(whereSeparator: \.isWhitespace).map(String.init) }.filter { !$0.isEmpty }
            guard !cells.isEmpty else { continue }
            let y = lines.count * Self.lineHeight
            var words: [OCRWord] = []
            var column = 0
            func place(_ cell: [String], at start: Int) {
                var x = start
                for word in cell {
                    words.append(OCRWord(text: word, confidence: 100, box: BoundingBox(
                        x: x * Self.cellWidth, y: y, width: word.count * Self.cellWidth, height: Self.wordHeight)))
                    x += word.count + 1
                }
                column = x + 1
            }
            for cell in cells.dropLast() { place(cell, at: column) }
            let last = cells[cells.count - 1]
            let length = last.map(\.count).reduce(0, +) + last.count - 1
            place(last, at: cells.count == 1 ? 0 : max(column + 2, Self.rightEdge - length))
            widest = max(widest, column)
            lines.append(OCRLine(words: words))
        }
        let width = widest * Self.cellWidth, height = max(1, lines.count) * Self.lineHeight
        return OCRResult(text: lines.map(\.text).joined(separator: "\n") + "\n", lines: lines, meanConfidence: 100,
                         imageWidth: width, imageHeight: height, sourceWidth: width, sourceHeight: height)
    }
}
