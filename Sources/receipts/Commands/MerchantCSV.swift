import Foundation
import ReceiptKit

/// The CSV of known merchants `receipts vendors import` reads: a header row naming the columns
/// (name required; taxId, phone, web, category; any order and case), then a merchant a row. Every
/// row is checked before anything is imported; the first bad one is a `Problem` naming its row.
enum MerchantCSV {
    struct Problem: Error {
        let message: String
    }

    static let columns = ["name", "taxid", "phone", "web", "category"]

    static func parse(_ text: String, taxonomy: Taxonomy) throws -> [KnownMerchant] {
        let rows = try records(text)
        guard let header = rows.first else { throw Problem(message: "the file is empty (a header row name,taxId,phone,web,category is expected)") }
        let names = header.map { $0.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: " ", with: "") }
        for name in names where !columns.contains(name) {
            throw Problem(message: "row 1: unknown column '\(name)' (the columns are name, taxId, phone, web, category)")
        }
        guard let nameColumn = names.firstIndex(of: "name") else { throw Problem(message: "row 1: no 'name' column") }
        var merchants: [KnownMerchant] = []
        var seen: [String: Int] = [:]
        for (offset, row) in rows.enumerated().dropFirst() {
            let number = offset + 1
            if row.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
            guard row.count == names.count else {
                throw Problem(message: "row \(number): \(row.count) fields where the header has \(names.count)")
            }
            func value(_ column: String) -> String? {
                names.firstIndex(of: column).map { row[$0].trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            let name = row[nameColumn].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.unicodeScalars.count <= ExpenseCorrection.maximumDescriptionLength else {
                throw Problem(message: "row \(number): the name is empty (or longer than \(ExpenseCorrection.maximumDescriptionLength) characters)")
            }
            if let first = seen[ShopLesson.nameKey(name)] { throw Problem(message: "row \(number): '\(name)' is row \(first)'s merchant too") }
            seen[ShopLesson.nameKey(name)] = number
            var merchant = KnownMerchant(name: name, taxId: value("taxid"), phone: value("phone"), web: value("web"))
            if let category = value("category") {
                guard let known = taxonomy.category(named: category) else {
                    throw Problem(message: "row \(number): unknown category '\(category)' (one of \(taxonomy.names.joined(separator: ", ")))")
                }
                merchant.category = known.name
            }
            if let taxId = merchant.taxId, taxId.filter({ $0.isLetter || $0.isNumber }).filter(\.isNumber).count < 5 {
                throw Problem(message: "row \(number): the tax id '\(taxId)' has fewer than 5 digits")
            }
            if let phone = merchant.phone {
                let digits = phone.filter(\.isASCIIDigit).count
                guard (7...15).contains(digits), phone.allSatisfy({ $0.isASCIIDigit || " +-().".contains($0) }) else {
                    throw Problem(message: "row \(number): '\(phone)' is not a phone number (7 to 15 digits, with + ( ) - . or spaces)")
                }
            }
            if let web = merchant.web {
                let domain = KnownMerchant.domain(web)
                guard domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."),
                      domain.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) else {
                    throw Problem(message: "row \(number): '\(web)' is not a web domain (such as shell.co.uk)")
                }
            }
            merchants.append(merchant)
        }
        guard !merchants.isEmpty else { throw Problem(message: "no merchant after the header row") }
        return merchants
    }

    /// The file's rows and their fields (RFC 4180: commas, fields in double quotes with `""` inside).
    static func records(_ text: String) throws -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = ""
        var quoted = false, wasQuoted = false, line = 1
        var chars = Array(text.replacingOccurrences(of: "\r\n", with: "\n"))
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if quoted {
                if c == "\"" {
                    if i + 1 < chars.count, chars[i + 1] == "\"" { field.append("\""); i += 1 } else { quoted = false }
                } else {
                    if c == "\n" { line += 1 }
                    field.append(c)
                }
            } else if c == "\"" {
                guard field.isEmpty, !wasQuoted else { throw Problem(message: "row \(line): a quote inside a field that does not start with one") }
                quoted = true
                wasQuoted = true
            } else if c == "," {
                row.append(field); field = ""; wasQuoted = false
            } else if c == "\n" {
                row.append(field); rows.append(row); row = []; field = ""; wasQuoted = false
                line += 1
            } else {
                field.append(c)
            }
            i += 1
        }
        if quoted { throw Problem(message: "row \(line): a quoted field is not closed") }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}
