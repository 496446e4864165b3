import Foundation
import ReceiptModel

/// An amount of money found in a receipt row.
package struct AmountToken: Sendable, Equatable {
    package var value: Decimal
    /// Index of the (first) whitespace-separated token of the row it was read from.
    package var tokenIndex: Int
    /// Number of tokens it spans (2 when a stray space split it).
    package var tokenCount: Int = 1
    /// Currency symbol or code written against it (`RM`, `$`, `£`, `EUR`, …), upper-cased.
    package var currencyMark: String?
    /// True when OCR confusions (O→0, S→5, l→1, B→8) had to be undone to read it.
    package var repaired: Bool = false
}

/// Reads amounts of money as receipts print them, undoing common OCR confusions.
///
/// Accepted shapes: `12.34`, `12,34`, `1,234.56`, `1.234,56`, `1 234.56` after a currency mark,
/// with a currency prefix (`RM12.34`, `$ 12.34`, `£12.34`, `US$12.34`, `EUR 12,34`), a trailing tax
/// code (`9.00SR`, `4.50 T`), a sign (`-1.50`, `1.50-`, `(1.50)`). Whole numbers without
/// decimals are not amounts (they are quantities, codes and counts far more often), except on a
/// receipt in a currency without minor units (`wholeUnits`: yen, won, rupiah, dong…), where
/// `224,400`, `Rp 224.400`, `¥5,160`, `12,312원` and `48.000đ` are whole amounts (the separators
/// group thousands), and so is a plain number with a currency mark (`¥800`, `Rp 5000`).
package enum AmountParser {
    package static let currencyMarks: [String] = [
        "US$", "USD", "AU$", "A$", "AUD", "C$", "CA$", "CAD", "S$", "SGD", "HK$", "HKD", "NZ$", "NZD",
        "RM", "MYR", "EUR", "GBP", "CHF", "AED", "INR", "RS.", "RS", "JPY", "CNY", "RMB", "SEK", "NOK", "DKK",
        "PLN", "CZK", "HUF", "THB", "PHP", "IDR", "RP", "ZAR", "R$", "BRL", "MXN", "R",
        "$", "£", "€", "¥", "₹", "₩", "₱", "฿",
    ]

    /// All amounts in a row, left to right. Percentages are skipped.
    package static func amounts(in text: String, wholeUnits: Bool = false) -> [AmountToken] {
        // No digit, no amount.
        // (Or a currency mark before letters read for digits: "RMS. OO".)
        guard text.utf8.contains(where: { $0 >= 0x30 && $0 <= 0x39 })
                || text.contains(where: { "$£€".contains($0) }) || text.range(of: "RM", options: .caseInsensitive) != nil else { return [] }
        let tokens = text.split(whereSeparator: \.isWhitespace).map(String.init)
        var result: [AmountToken] = []
        var i = 0
        var pendingMark: String? = nil
        while i < tokens.count {
            var token = tokens[i]
            // "£15-12": a currency sign, then a hyphen read for the decimal point.
            if let first = token.first, "£$€".contains(first), token.count >= 5, token.count <= 9,
               token.dropFirst().filter({ $0 == "-" }).count == 1, token.suffix(3).first == "-",
               token.dropFirst().allSatisfy({ $0.isASCIIDigit || $0 == "-" }) {
                token = String(token.dropLast(3)) + "." + String(token.suffix(2))
            }
            // "RMS. OO", "RMS: OO": after a currency mark, a space after the point (or a colon read
            // for it) and the cents read as the letter O.
            if i + 1 < tokens.count, token.count >= 3, token.hasSuffix(".") || token.hasSuffix(":"),
               ["RM", "$", "£", "€"].contains(where: { token.uppercased().hasPrefix($0) }),
               tokens[i + 1].count == 2, tokens[i + 1].allSatisfy({ $0 == "O" || $0 == "o" || $0.isASCIIDigit }),
               tokens[i + 1].contains(where: { !$0.isASCIIDigit }),
               var amount = parse(String(token.dropLast()) + "." + String(tokens[i + 1].map { $0.isASCIIDigit ? $0 : "0" })) {
                amount.tokenIndex = i
                amount.tokenCount = 2
                amount.repaired = true
                result.append(amount)
                pendingMark = nil
                i += 2
                continue
            }
            // A stray space inside the number: "12. 50", "12 .50", "12 , 50".
            if i + 1 < tokens.count, let joined = joinSplit(token, tokens[i + 1]),
               var amount = parse(joined) {
                amount.tokenIndex = i
                amount.tokenCount = 2
                if amount.currencyMark == nil { amount.currencyMark = pendingMark }
                result.append(amount)
                pendingMark = nil
                i += 2
                continue
            }
            // Thousands split by a space after a currency mark: "RM 1 234.50".
            if pendingMark != nil, i + 1 < tokens.count, token.count <= 3, token.allSatisfy(\.isNumber),
               let amount = parse(token + tokens[i + 1]), tokens[i + 1].first?.isNumber == true,
               tokens[i + 1].prefix(4).filter(\.isNumber).count == 3 {
                result.append(AmountToken(value: amount.value, tokenIndex: i, tokenCount: 2,
                                          currencyMark: pendingMark, repaired: true))
                pendingMark = nil
                i += 2
                continue
            }
            if var amount = parse(token, wholeUnits: wholeUnits, marked: pendingMark != nil || wholeUnits && i + 1 < tokens.count
                                   && wholeUnitSuffixes.contains(tokens[i + 1].uppercased())) {
                amount.tokenIndex = i
                if amount.currencyMark == nil { amount.currencyMark = pendingMark }
                result.append(amount)
                pendingMark = nil
            } else if let mark = standaloneMark(token) {
                pendingMark = mark
            } else {
                pendingMark = nil
            }
            i += 1
        }
        return result
    }

    /// Marks written after a whole amount: `7,324円`, `12,312원`, `48.000đ`, `48.000 VND`, `224.400,-`.
    package static let wholeUnitSuffixes: Set<String> = ["円", "원", "₫", "đ", "Đ", "VND", "VNĐ", "DONG", ",-", ".-", "YEN", "WON"]

    /// Reads one token as an amount, or nil. With `wholeUnits`, a number whose separators group
    /// thousands is a whole amount, and so is a plain number when `marked` (a currency mark stands
    /// before it or after it) or when the token carries a mark of its own.
    package static func parse(_ token: String, wholeUnits: Bool = false, marked: Bool = false) -> AmountToken? {
        if wholeUnits, let whole = parseWhole(token, marked: marked) { return whole }
        var s = Substring(token)
        var mark: String? = nil
        var negative = false
        // Leading punctuation and sign.
        while let c = s.first, "([{:=*#~'\"“‘><_«»|".contains(c) { s.removeFirst() }
        if let c = s.first, c == "-" || c == "−" || c == "–" { negative = true; s.removeFirst() }
        // Currency prefix.
        let upper = s.first?.isNumber == false ? s.uppercased() : ""
        for m in currencyMarks where !upper.isEmpty && upper.hasPrefix(m) {
            let rest = s.dropFirst(m.count).drop(while: { $0 == "_" })
            // "RS" / "RP" / "R$" only count as marks when a digit follows.
            guard let next = rest.first else { break }
            if next.isNumber || "OoSlI".contains(next) && m.count > 1 || m.count == 1 && m != "R" {
                mark = m
                s = rest
            }
            break
        }
        if let c = s.first, c == "-" || c == "−" { negative = true; s.removeFirst() }
        while let c = s.first, c == ":" || c == "=" || c == "_" { s.removeFirst() }
        // The numeric core: digits, separators and letters OCR confuses with digits.
        var core = ""
        var end = s.startIndex
        for c in s {
            if c.isASCII && (c.isNumber || c == "." || c == ",") || confusable(c) != nil {
                core.append(c)
                end = s.index(after: end)
            } else {
                break
            }
        }
        var suffix = s[end...]
        // ".74", "-.02": no digit before the decimal point.
        if core.first == ".", core.count == 3 { core = "0" + core }
        // Letters at the end may be a tax code ("9.00SR", "4.50T") read as digits ("SR" → "5R").
        while let last = core.last, !last.isNumber, confusable(last) != nil, !shape(core) {
            core.removeLast()
            suffix = "x" + suffix
        }
        // "0,00.": a speck after the number.
        if !shape(core), let last = core.last, last == "." || last == ",", shape(String(core.dropLast())) {
            core.removeLast()
            suffix = "x" + suffix
        }
        guard shape(core) else { return nil }
        // What follows the number must not continue it.
        if let c = suffix.first {
            if c == "%" { return nil }
            if c.isNumber { return nil }
            if c == "-" || c == "−" { negative = true }
            if c == "/" || c == ":" { return nil }       // dates and times
        }
        let digitsBefore = core.filter(\.isNumber).count
        guard digitsBefore * 2 >= core.filter({ $0 != "." && $0 != "," }).count else { return nil }
        var repaired = false
        let mapped = String(core.map { c -> Character in
            if let d = confusable(c) { repaired = true; return d }
            return c
        })
        guard shape(mapped), var value = Money.parse(mapped) else { return nil }
        if negative { value.negate() }
        return AmountToken(value: value, tokenIndex: 0, currencyMark: mark, repaired: repaired)
    }

    /// `224,400`, `¥5,160`, `Rp224.400`, `12,312원`, `224.400,-`; `¥800` or `800` after a mark.
    private static func parseWhole(_ token: String, marked: Bool) -> AmountToken? {
        var s = Substring(token)
        var mark: String? = nil
        var negative = false
        while let c = s.first, "([{:=*#~'\"“‘><_«»|".contains(c) { s.removeFirst() }
        if let c = s.first, c == "-" || c == "−" { negative = true; s.removeFirst() }
        let upper = s.uppercased()
        for m in ["¥", "￥", "₩", "RP.", "RP", "IDR", "JPY", "KRW", "VND", "₫"] where upper.hasPrefix(m) {
            mark = m == "RP." ? "RP" : m
            s = s.dropFirst(m.count).drop(while: { $0 == " " || $0 == "." && m != "RP." })
            break
        }
        var suffixMarked = false
        for suffix in wholeUnitSuffixes.sorted(by: { $0.count > $1.count }) where s.uppercased().hasSuffix(suffix) && s.count > suffix.count {
            s = s.dropLast(suffix.count)
            suffixMarked = true
            break
        }
        while let c = s.last, c == ")" || c == "," || c == "." && !suffixMarked { s.removeLast() }
        guard let first = s.first, first.isASCIIDigit, s.allSatisfy({ $0.isASCIIDigit || $0 == "." || $0 == "," }) else { return nil }
        let groups = s.split(separator: s.contains(",") ? "," : ".", omittingEmptySubsequences: false)
        let grouped = groups.count >= 2 && !(s.contains(",") && s.contains("."))
            && (1...3).contains(groups[0].count) && groups.dropFirst().allSatisfy { $0.count == 3 }
        let plain = groups.count == 1 && (2...9).contains(s.count) && first != "0" && (marked || mark != nil || suffixMarked)
        guard grouped || plain, var value = Decimal(string: String(s.filter(\.isASCIIDigit))) else { return nil }
        if negative { value.negate() }
        return AmountToken(value: value, tokenIndex: 0, currencyMark: mark ?? (suffixMarked ? "WHOLE" : nil))
    }

    /// The digit an OCR engine may have read as this letter.
    package static func confusable(_ c: Character) -> Character? {
        switch c {
        case "O", "o", "Q", "D": return "0"
        case "S", "s", "§": return "5"
        case "l", "I", "|", "i", "!", "]": return "1"
        case "B": return "8"
        case "Z", "z": return "2"
        default: return nil
        }
    }

    /// `12.34`, `12,34`, `1,234.56`, `1.234,56` (letters allowed where digits go).
    private static func shape(_ s: String) -> Bool {
        let chars = Array(s)
        guard chars.count >= 4 else { return false }
        let sep = chars[chars.count - 3]
        guard sep == "." || sep == "," else { return false }
        guard chars.suffix(2).allSatisfy(isDigitLike) else { return false }
        let whole = Array(chars.dropLast(3))
        guard let first = whole.first, isDigitLike(first), !whole.contains(sep) else { return false }
        let groups = whole.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "." || $0 == "," })
        guard groups.allSatisfy({ $0.allSatisfy(isDigitLike) }) else { return false }
        if groups.count == 1 { return whole.count <= 7 }
        return (1...3).contains(groups[0].count) && groups.dropFirst().allSatisfy { $0.count == 3 }
    }

    private static func isDigitLike(_ c: Character) -> Bool {
        (c.isASCII && c.isNumber) || confusable(c) != nil
    }

    private static func joinSplit(_ a: String, _ b: String) -> String? {
        guard let bFirst = b.first, bFirst.isNumber || bFirst == "." || bFirst == ",", b.count <= 4,
              let aLast = a.last, aLast.isNumber || aLast == "." || aLast == "," else { return nil }
        func trimSeparators(_ t: String) -> String {
            String(t.drop { $0 == "." || $0 == "," }.reversed().drop { $0 == "." || $0 == "," }.reversed())
        }
        // "6. 88-": the second part may carry the trailing minus of a refund.
        let sign = b.count >= 2 && (b.hasSuffix("-") || b.hasSuffix("−")) ? "-" : ""
        let aDigits = trimSeparators(a)
        let bDigits = trimSeparators(sign.isEmpty ? b : String(b.dropLast()))
        let aSep = a.hasSuffix(".") || a.hasSuffix(",")
        let bSep = b.hasPrefix(".") || b.hasPrefix(",")
        guard aSep != bSep, !aDigits.isEmpty, aDigits.last?.isNumber == true,
              bDigits.count == 2, bDigits.allSatisfy(\.isNumber),
              aDigits.filter({ $0 == "." || $0 == "," }).isEmpty else { return nil }
        let stripped = aDigits.drop { !$0.isNumber && !"$£€".contains($0) }
        guard stripped.drop(while: { !$0.isNumber }).allSatisfy(\.isNumber) else { return nil }
        return aDigits + "." + bDigits + sign
    }

    private static func standaloneMark(_ token: String) -> String? {
        let t = token.uppercased().trimmingCharacters(in: CharacterSet(charactersIn: ":.()"))
        return currencyMarks.contains(t) && t != "RS." ? t : nil
    }
}

extension Character {
    /// `0`–`9` only (not other scripts' digits, not fractions).
    package var isASCIIDigit: Bool { isASCII && isNumber }
}
