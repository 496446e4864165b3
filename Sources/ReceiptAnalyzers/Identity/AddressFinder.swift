import Foundation
import ReceiptModel

/// The shop's address as printed, its rows joined into one line, with its postcode.
package struct AddressFinding: Sendable, Equatable {
    package var value: String
    package var postcode: String?
    package var words: [OCRWord]
    package var confidence: Double
}

/// Finds the shop's address among the header rows: from the first row that reads as an address
/// (a street or area word, a postcode, a house number before words: `VendorFinder.isAddress`),
/// the rows below it that continue it — more address rows, rows ending a line with a comma, a city
/// with its postcode, a bracketed place (`(TESCO PUTRA NILAI)`) — up to a phone, tax number, date,
/// heading or amount.
package enum AddressFinder {
    /// Rows that end an address: contact details, numbers, headings.
    static let stopWords: PhraseList = ["TEL", "PHONE", "FAX", "GST", "VAT", "SST", "ABN", "REG", "INVOICE", "RECEIPT", "DATE", "TIME",
                                        "CASHIER", "TABLE", "ORDER", "EMAIL", "WWW", "HTTP", "TAX", "DOC", "BILL", "MEMBER", "OPEN"]
    static let houseNumber = Pattern(#"^\s*(?:NO\.?\s*)?\d{1,5}[A-Z]?(?:[-/]\d{1,5}[A-Z]?)?[,\s]+[A-Z]{3,}"#)
    static let postcode = Pattern(#"\b(\d{5}(?:-\d{4})?)\b|\b([A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2})\b|\b(\d{4})\s+[A-Z]{3,}"#, caseInsensitive: false)

    package static func find(_ document: ReceiptDocument, vendorRows: Set<Int> = []) -> AddressFinding? {
        let header = Array(document.lines.prefix(14))
        guard let start = header.firstIndex(where: { !vendorRows.contains($0.index) && startsAddress($0) }) else { return nil }
        var rows = [header[start]]
        for line in header.dropFirst(start + 1) {
            guard rows.count < 5, continues(line, after: rows.last!) else { break }
            rows.append(line)
        }
        let text = rows.map { $0.text.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            .replacingOccurrences(of: " ,", with: ",")
        let upper = text.uppercased()
        let code = postcode.matches(in: upper).last.flatMap { m in m.groups.dropFirst().compactMap { $0 }.first }
        let confidence = rows.map(\.confidence).reduce(0, +) / Double(rows.count) / 100
        return AddressFinding(value: text, postcode: code, words: rows.flatMap(\.words), confidence: min(0.95, confidence * 0.9))
    }

    static func startsAddress(_ line: ReceiptLine) -> Bool {
        let label = LabelText(line.text)
        guard line.text.filter(\.isLetter).count >= 3, !label.hasAny(stopWords), !hasManyAmounts(line) else { return false }
        return VendorFinder.isAddress(line.text) || houseNumber.matches(line.upper)
    }

    /// Whether `line` carries on the address ended by `previous`.
    static func continues(_ line: ReceiptLine, after previous: ReceiptLine) -> Bool {
        let label = LabelText(line.text)
        guard !label.hasAny(stopWords), !hasManyAmounts(line), line.text.filter(\.isLetter).count >= 2 else { return false }
        if DateFinder.find(ReceiptDocument(lines: [line]), orderHint: nil, defaultOrder: .dayFirst, today: farFuture) != nil {
            return false
        }
        let text = line.text.trimmingCharacters(in: .whitespaces)
        return VendorFinder.isAddress(line.text) || previous.text.trimmingCharacters(in: .whitespaces).hasSuffix(",")
            || (text.hasPrefix("(") && text.hasSuffix(")")) || postcode.matches(line.upper)
    }

    private static let farFuture = CalendarDate(year: 2100, month: 1, day: 1)!

    /// Prices: two amounts with cents on the row.
    static func hasManyAmounts(_ line: ReceiptLine) -> Bool {
        cents.matches(in: line.text).count >= 2
    }
    private static let cents = Pattern(#"\d[.,]\d{2}\b"#)
}
