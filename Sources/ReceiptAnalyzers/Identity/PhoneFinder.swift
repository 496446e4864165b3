import Foundation
import ReceiptModel

/// A phone number read from a receipt, normalized with the receipt's country.
package struct PhoneFinding: Sendable, Equatable {
    /// `+60378051234` when the country is known (printed `+60…`/`0060…`, or the receipt's currency
    /// names it), else the digits as printed.
    package var value: String
    package var words: [OCRWord]
    package var confidence: Double
}

/// Finds the shop's phone number: a number after a phone label (`TEL`, `Phone`, `Tlf.`, `HP`…),
/// else a number shaped like a phone number (`(323) 939-5528`, `03-7805 1234`, `+44 20 7946 0018`)
/// in the upper half of the receipt; never a fax's, a date, an amount or a tax number.
package enum PhoneFinder {
    static let label = Pattern(#"(?:^|[^A-Z])(?:TEL(?:EPHONE|EFON|EFONE|F)?|PHONE|PH|TLF|TFNO|TELF|T|HP|H/P|MOB(?:ILE)?|CALL|HOTLINE|CONTACT|FON|TÉL)\b\.?\s*(?:NO\.?|NUMBER|#)?\s*[:.]?\s*"#)
    static let fax = Pattern(#"\bFAX\b|\bF\s*:"#)
    /// A run of digits with the separators phone numbers are printed with.
    static let number = Pattern(#"(?<![\d.,/])(?:\+|00)?\(?\d[\d\s().\-/]{5,18}\d(?![\d.,]\d)"#)
    /// Shapes only phone numbers have, for a number without a label.
    static let shaped = Pattern(#"^(?:\+|00)\d|^\(\d{2,4}\)\s?\d|^\d{2,4}[\s-]\d{3,4}[\s-]\d{3,4}$|^0\d{1,2}-\d{6,8}$|^0\d{1,3}\s\d{3,4}\s?\d{3,4}$"#)

    package static func find(_ document: ReceiptDocument, country: CallingCountry?) -> PhoneFinding? {
        let lines = document.lines
        // A labelled number anywhere; else a shaped one in the upper half.
        for line in lines {
            if let found = labelled(line, country: country) { return found }
        }
        let half = lines.count / 2 + 1
        for line in lines.prefix(half) where fax.firstMatch(in: line.upper) == nil {
            for candidate in number.matches(in: line.text).compactMap({ $0.groups[0] }) {
                let text = candidate.trimmingCharacters(in: .whitespaces)
                if shaped.matches(text), !looksLikeDate(text), let found = finding(text, line, country: country) { return found }
            }
        }
        return nil
    }

    /// The number after a phone label on `line` (the part before a `FAX` label, when the row has both).
    static func labelled(_ line: ReceiptLine, country: CallingCountry?) -> PhoneFinding? {
        var upper = line.upper
        if let faxMatch = fax.matches(in: upper).first {
            let head = (upper as NSString).substring(to: faxMatch.offset)
            // "FAX: 03-… TEL: 03-…": the label after the fax's.
            upper = label.matches(in: head).isEmpty ? (upper as NSString).substring(from: faxMatch.offset + 3) : head
        }
        for match in label.matches(in: upper) {
            let after = (upper as NSString).substring(from: match.offset + ((match.groups[0] ?? "") as NSString).length)
            // The number right after its label (a colon or a space or two between them).
            if let first = number.matches(in: after).first, first.offset <= 3, let candidate = first.groups[0] {
                let text = candidate.trimmingCharacters(in: .whitespaces)
                if !looksLikeDate(text), let found = finding(text, line, country: country) { return found }
            }
        }
        return nil
    }

    /// `12/03/2024`, `2024-03-12`: a date, not a number to call.
    static func looksLikeDate(_ text: String) -> Bool {
        datePattern.matches(text)
    }
    private static let datePattern = Pattern(#"^\d{1,4}[/.\-]\d{1,2}[/.\-]\d{2,4}$"#)

    static func finding(_ printed: String, _ line: ReceiptLine, country: CallingCountry?) -> PhoneFinding? {
        guard let value = normalize(printed, country: country) else { return nil }
        let digits = printed.filter(\.isASCIIDigit)
        let words = line.words.filter { word in
            let d = word.text.filter(\.isASCIIDigit)
            return d.count >= 2 && digits.contains(d)
        }
        let read = (words.isEmpty ? line.confidence : words.map(\.confidence).min()!) / 100
        return PhoneFinding(value: value, words: words, confidence: min(0.98, read))
    }

    /// A printed number in international form, with the receipt's country where it prints none:
    /// its trunk `0` dropped where the country dials without it; nil for a number too short or too
    /// long to be a phone's (7–15 digits).
    package static func normalize(_ printed: String, country: CallingCountry?) -> String? {
        var digits = printed.filter(\.isASCIIDigit)
        let trimmed = printed.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("+") || trimmed.hasPrefix("00") {
            if trimmed.hasPrefix("00") { digits.removeFirst(2) }
            // "+44 (0)20 …": the trunk 0 in brackets is not dialled from abroad.
            if printed.contains("(0)"), let code = CallingCountry.all.first(where: { digits.hasPrefix($0.code) }),
               digits.dropFirst(code.code.count).first == "0" {
                digits = code.code + digits.dropFirst(code.code.count + 1)
            }
            return (8...15).contains(digits.count) ? "+" + digits : nil
        }
        guard (7...13).contains(digits.count) else { return nil }
        guard let country else { return digits }
        if country.code == "1" {
            if digits.count == 11, digits.hasPrefix("1") { digits.removeFirst() }
            return digits.count == 10 ? "+1" + digits : digits
        }
        if country.dropsTrunkZero, digits.hasPrefix("0") { digits.removeFirst() }
        return "+" + country.code + digits
    }
}

/// A country's calling code and whether its numbers are dialled without their trunk `0` from abroad.
package struct CallingCountry: Sendable, Equatable {
    package let code: String
    package let dropsTrunkZero: Bool

    /// The calling codes of the countries whose currency names them (the euro names none).
    static let byCurrency: [String: CallingCountry] = [
        "MYR": .init(code: "60", dropsTrunkZero: true), "SGD": .init(code: "65", dropsTrunkZero: false),
        "GBP": .init(code: "44", dropsTrunkZero: true), "USD": .init(code: "1", dropsTrunkZero: false),
        "CAD": .init(code: "1", dropsTrunkZero: false), "AUD": .init(code: "61", dropsTrunkZero: true),
        "NZD": .init(code: "64", dropsTrunkZero: true), "JPY": .init(code: "81", dropsTrunkZero: true),
        "IDR": .init(code: "62", dropsTrunkZero: true), "INR": .init(code: "91", dropsTrunkZero: true),
        "KRW": .init(code: "82", dropsTrunkZero: true), "CHF": .init(code: "41", dropsTrunkZero: true),
        "HKD": .init(code: "852", dropsTrunkZero: false), "THB": .init(code: "66", dropsTrunkZero: true),
        "PHP": .init(code: "63", dropsTrunkZero: true), "CNY": .init(code: "86", dropsTrunkZero: true),
        "ZAR": .init(code: "27", dropsTrunkZero: true), "AED": .init(code: "971", dropsTrunkZero: true),
        "SEK": .init(code: "46", dropsTrunkZero: true), "NOK": .init(code: "47", dropsTrunkZero: false),
        "DKK": .init(code: "45", dropsTrunkZero: false), "PLN": .init(code: "48", dropsTrunkZero: false),
        "CZK": .init(code: "420", dropsTrunkZero: false), "HUF": .init(code: "36", dropsTrunkZero: false),
        "MXN": .init(code: "52", dropsTrunkZero: false), "BRL": .init(code: "55", dropsTrunkZero: true),
    ]

    /// The calling codes of the euro countries, by the prefix of their VAT numbers.
    static let byTaxPrefix: [String: CallingCountry] = [
        "DE": .init(code: "49", dropsTrunkZero: true), "FR": .init(code: "33", dropsTrunkZero: true),
        "IT": .init(code: "39", dropsTrunkZero: false), "ES": .init(code: "34", dropsTrunkZero: false),
        "NL": .init(code: "31", dropsTrunkZero: true), "BE": .init(code: "32", dropsTrunkZero: true),
        "AT": .init(code: "43", dropsTrunkZero: true), "PT": .init(code: "351", dropsTrunkZero: false),
        "IE": .init(code: "353", dropsTrunkZero: true), "FI": .init(code: "358", dropsTrunkZero: true),
        "GB": .init(code: "44", dropsTrunkZero: true), "PL": .init(code: "48", dropsTrunkZero: false),
    ]

    static let all: [CallingCountry] = Array(byCurrency.values) + Array(byTaxPrefix.values)

    /// The receipt's country as far as its currency or its tax number's prefix says.
    package static func of(currency: String?, taxId: String?) -> CallingCountry? {
        if let taxId, taxId.count > 2, let country = byTaxPrefix[String(taxId.prefix(2))] { return country }
        return currency.flatMap { byCurrency[$0] }
    }
}
