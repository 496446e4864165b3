import Foundation
import ReceiptModel

/// The receipt's currency, from marks next to amounts and from evidence of the country.
package struct CurrencyFinding: Sendable, Equatable {
    /// ISO 4217 code.
    package var code: String
    package var confidence: Double
    /// The country the evidence points at reads numeric dates day-first / month-first.
    package var dateOrder: DateOrder?
}

package enum CurrencyDetector {
    /// Marks written against amounts, or as words on the receipt.
    package static let marks: [String: String] = [
        "US$": "USD", "USD": "USD", "AU$": "AUD", "A$": "AUD", "AUD": "AUD", "C$": "CAD", "CA$": "CAD", "CAD": "CAD",
        "S$": "SGD", "SGD": "SGD", "HK$": "HKD", "HKD": "HKD", "NZ$": "NZD", "NZD": "NZD", "RM": "MYR", "MYR": "MYR",
        "EUR": "EUR", "GBP": "GBP", "CHF": "CHF", "AED": "AED", "INR": "INR", "RS.": "INR", "RS": "INR", "₹": "INR",
        "JPY": "JPY", "CNY": "CNY", "RMB": "CNY", "SEK": "SEK", "NOK": "NOK", "DKK": "DKK", "PLN": "PLN", "CZK": "CZK",
        "HUF": "HUF", "THB": "THB", "฿": "THB", "PHP": "PHP", "₱": "PHP", "IDR": "IDR", "RP": "IDR", "ZAR": "ZAR",
        "R$": "BRL", "BRL": "BRL", "MXN": "MXN", "£": "GBP", "€": "EUR", "¥": "JPY", "₩": "KRW",
    ]

    /// Currencies whose countries write numeric dates month-first.
    package static let monthFirstCurrencies: Set<String> = ["USD"]
    /// Currencies written with a bare `$`.
    package static let dollarCurrencies: Set<String> = ["USD", "AUD", "CAD", "SGD", "HKD", "NZD", "MXN"]

    /// A UK VAT number: `GB 123 4567 89`, `GB123456789`; or nine digits in its groups of three, four
    /// and two after the word VAT (`VAT No. 731 4408 25`), as UK tills print it without the GB.
    private static let ukVatNumber = Pattern(#"\bGB\s?\d{3}\s?\d{4}\s?\d{2}\b|\bVAT\b[^0-9\n]{0,16}\d{3}\s\d{4}\s\d{2}\b"#,
                                             caseInsensitive: false)
    /// Amounts with a decimal comma (`8,48`) and with a decimal point (`8.48`).
    private static let commaDecimal = Pattern(#"(?<![\d.,])\d{1,4},\d{2}(?![\d.,])"#)
    private static let pointDecimal = Pattern(#"(?<![\d.,])\d{1,4}\.\d{2}(?![\d.,])"#)
    private static let ukPostcode = Pattern(#"\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"#, caseInsensitive: false)
    private static let malaysia = ["SDN BHD", "SDN", "BHD", "BERHAD", "MALAYSIA", "SELANGOR", "KUALA LUMPUR", "JOHOR",
                                   "PENANG", "PULAU PINANG", "PERAK", "KEDAH", "MELAKA", "MALACCA", "NEGERI SEMBILAN",
                                   "PAHANG", "SABAH", "SARAWAK", "TERENGGANU", "KELANTAN", "PERLIS", "PUTRAJAYA",
                                   "JALAN", "JLN", "TAMAN", "PETALING JAYA", "SHAH ALAM", "KLANG", "CHERAS", "PUCHONG",
                                   "SUBANG", "KAJANG", "SEREMBAN", "IPOH"]
    /// Malaysian GST numbers have 12 digits ("GST No. : 001604310720"); company numbers end in a
    /// check letter ("(Co No. 319481-T)").
    private static let malaysianNumbers = Pattern(#"\bGST\b[^0-9\n]{0,12}\d{12}\b|\b\d{5,7}\s?-\s?[A-Z]\)"#, caseInsensitive: false)
    private static let singapore = ["SINGAPORE", "PTE LTD", "PTE"]
    private static let australia = ["AUSTRALIA", "ABN", "NSW", "VIC", "QLD"]
    private static let uk = ["UNITED KINGDOM", "LONDON", "ENGLAND", "SCOTLAND", "VAT REG", "VAT NO", "VAT NUMBER"]
    private static let euro = ["BTW", "MWST", "UST", "TVA", "IVA", "EURO", "EUROS", "EUR", "TTC", "GMBH", "SUMME",
                               "NETHERLANDS", "DEUTSCHLAND", "FRANCE", "ESPANA", "ITALIA", "BELGIQUE"]
    private static let india = ["GSTIN", "INDIA", "RUPEES", "CGST", "SGST"]
    private static let usa = ["USA", "UNITED STATES"]
    /// Canada's sales taxes (GST/HST; TPS/TVQ in Quebec. Not QST: OCR reads GST as "qst").
    private static let canada = ["CANADA", "HST", "GST HST", "TPS", "TVQ"]
    /// A Canadian postal code (`M4S 2C6`, `H3B 4W8`).
    private static let canadianPostcode = Pattern(#"\b[ABCEGHJ-NPRSTVXY]\d[A-Z]\s?\d[A-Z]\d\b"#, caseInsensitive: false)

    /// Marks of currencies without minor units written against whole numbers (`¥5,160`, `7,324円`,
    /// `Rp 224.400`, `12,312원`, `48.000đ`): the amounts themselves are read as such only once the
    /// currency is known (`AmountParser`), so the marks are found in the text.
    private static let wholeUnitMarks: [(Pattern, String)] = [
        (Pattern(#"[¥￥]\s?\d{1,3}(?:,\d{3})+(?![.,]?\d)|[¥￥]\s?\d{2,7}(?![\d.,])|\d(?:,\d{3})*\s?円|\bJPY\b|\bYEN\b"#), "JPY"),
        (Pattern(#"₩\s?\d|\d\s?원|\bKRW\b"#), "KRW"),
        (Pattern(#"\bRP\.?\s?\d{1,3}(?:\.\d{3})+(?![\d]|[.,]\d)|\bIDR\b"#), "IDR"),
        (Pattern(#"\d(?:[.,]\d{3})+\s?(?:Đ|₫|VNĐ|VND)(?![A-Z])|\bVND\b"#), "VND"),
    ]
    private static let indonesia = ["INDONESIA", "NPWP", "JAKARTA", "PPN"]
    private static let japan = ["JAPAN", "日本", "東京"]
    private static let korea = ["KOREA", "SEOUL", "대한민국"]
    private static let vietnam = ["VIETNAM", "VIET NAM", "HA NOI", "HANOI", "HO CHI MINH", "TP HCM", "MST"]

    package static func detect(_ document: ReceiptDocument, amounts: [AmountLine]) -> CurrencyFinding? {
        var votes: [String: Double] = [:]
        var dollar = 0
        for row in amounts {
            for a in row.amounts {
                guard let mark = a.currencyMark else { continue }
                if mark == "$" { dollar += 1; continue }
                if mark == "RS" || mark == "RP" { votes[marks[mark]!, default: 0] += 0.5; continue }
                if let code = marks[mark] { votes[code, default: 0] += 2 }
            }
        }
        let text = document.upperText
        // A symbol not written against an amount may be OCR noise: a weak vote.
        for (symbol, code) in [("£", "GBP"), ("€", "EUR"), ("₹", "INR"), ("¥", "JPY")] where text.contains(symbol) {
            votes[code, default: 0] += 0.5
        }
        let all = LabelText(text)
        for word in ["USD", "EUR", "EUROS", "GBP", "MYR", "SGD", "AUD", "CAD", "CHF", "AED", "INR", "HKD"] where all.has(word) {
            votes[word == "EUROS" ? "EUR" : word, default: 0] += 1
        }
        if text.contains("US$") { votes["USD", default: 0] += 2 }
        for (pattern, code) in wholeUnitMarks {
            let found = pattern.matches(in: text).count
            if found > 0 { votes[code, default: 0] += min(4, 2 * Double(found)) }
        }
        let explicit = votes.filter { $0.value >= 1 }
        // Evidence of the country.
        var country: [String: Double] = [:]
        country["MYR"] = Double(malaysia.filter { all.has($0) }.count + malaysianNumbers.matches(in: text).count * 2)
        country["SGD"] = Double(singapore.filter { all.has($0) }.count)
        country["AUD"] = Double(australia.filter { all.has($0) }.count) * 0.5
        country["GBP"] = Double(uk.filter { all.has($0) }.count + ukPostcode.matches(in: text).count) * 0.5
            + (ukVatNumber.matches(text) ? 2 : 0)
        country["EUR"] = Double(euro.filter { all.has($0) }.count) * 0.5
        // A euro country's tax name on a receipt that writes its amounts with decimal commas.
        if country["EUR"]! > 0 {
            let commas = commaDecimal.matches(in: text).count
            if commas >= 2, commas > pointDecimal.matches(in: text).count { country["EUR"]! += 0.5 }
        }
        country["INR"] = Double(india.filter { all.has($0) }.count)
        // A North American phone number is weak evidence (Canada shares the format): with `$`
        // amounts and nothing pointing at another dollar country, it is enough for US dollars.
        country["USD"] = Double(DateFinder.usStateAndZip.matches(in: text).count * 2 + usa.filter { all.has($0) }.count)
            + (DateFinder.northAmericanPhone.matches(text) ? 0.5 : 0)
        country["CAD"] = Double(canada.filter { all.has($0) }.count + canadianPostcode.matches(in: text).count * 2)
        country["IDR"] = Double(indonesia.filter { all.has($0) }.count) * 0.5
        country["JPY"] = Double(japan.filter { all.has($0) || text.contains($0) }.count) * 0.5
        country["KRW"] = Double(korea.filter { all.has($0) || text.contains($0) }.count) * 0.5
        country["VND"] = Double(vietnam.filter { all.has($0) }.count) * 0.5
        for (code, weight) in country where weight > 0 {
            // A bare `$` counts for the dollar countries (and Malaysia, where tills print `$` for RM).
            let dollarBonus = dollar > 0 && (dollarCurrencies.contains(code) || code == "MYR") ? 1.0 : 0
            votes[code, default: 0] += min(4, weight) + dollarBonus
        }
        guard let (code, score) = votes.max(by: { $0.value < $1.value || $0.value == $1.value && $0.key > $1.key }),
              score >= 1 else { return nil }
        if dollar > 0 && !dollarCurrencies.contains(code) && code != "MYR" && explicit[code] == nil {
            // `$` amounts on a receipt whose other evidence names a country without dollars.
            return nil
        }
        let confidence = explicit[code] != nil ? 0.9 : (score >= 2 ? 0.7 : 0.5)
        return CurrencyFinding(code: code, confidence: confidence, dateOrder: order(for: code))
    }

    package static func order(for code: String) -> DateOrder? {
        if monthFirstCurrencies.contains(code) { return .monthFirst }
        if code == "CAD" || code == "CNY" || code == "JPY" || code == "KRW" { return nil }
        if code == "VND" || code == "IDR" { return .dayFirst }
        return .dayFirst
    }
}
