import Foundation
import ReceiptModel

/// The words of a row, upper-cased and with OCR slips in common receipt words repaired, for
/// matching labels such as `GRAND TOTAL` or `SUB-TOTAL`.
package struct LabelText: Sendable {
    /// Words joined by single spaces, with a space at both ends: `" GRAND TOTAL "`.
    package let spaced: String
    /// The same words with no spaces: `"GRANDTOTAL"`.
    package let compact: String
    package let words: [String]
    private let wordSet: Set<String>
    private let compactBytes: [UInt8]

    /// Keywords that OCR often misreads by one letter (`TOTAI`, `T0TAL`, `CHANGF`).
    package static let vocabulary: [String] = [
        "TOTAL", "SUBTOTAL", "AMOUNT", "CHANGE", "ROUNDING", "ROUNDED", "BALANCE", "PAYABLE", "INCLUSIVE",
        "INCLUDING", "EXCLUDING", "EXCLUSIVE", "INVOICE", "RECEIPT", "DISCOUNT", "TENDERED", "PAYMENT",
        "CASHIER", "GRAND", "SUMME", "JUMLAH", "SAVINGS", "TOTALE",
    ]

    package init(_ text: String) {
        var words = LabelText.words(text)
        words = words.flatMap(LabelText.splitLeadingDigits).map(LabelText.repair).flatMap(LabelText.splitTrailingDigits)
        words = LabelText.joinTaxAbbreviations(words)
        self.words = words
        self.wordSet = Set(words)
        self.spaced = " " + words.joined(separator: " ") + " "
        self.compact = words.joined()
        self.compactBytes = Array(compact.utf8)
    }

    /// True when the row holds the phrase as whole words (`"GRAND TOTAL"`), or glued
    /// (`GRANDTOTAL`) for phrases of several words and at least five letters.
    package func has(_ phrase: String) -> Bool {
        guard phrase.utf8.contains(0x20) else { return wordSet.contains(phrase) }
        return has(Phrase(phrase))
    }

    package func has(_ phrase: Phrase) -> Bool {
        guard let first = phrase.parts.first else { return false }
        if phrase.parts.count == 1 { return wordSet.contains(first) }
        if wordSet.contains(first) {
            // Consecutive whole words.
            var i = 0
            while i + phrase.parts.count <= words.count {
                if words[i] == first, (1..<phrase.parts.count).allSatisfy({ words[i + $0] == phrase.parts[$0] }) { return true }
                i += 1
            }
        }
        return phrase.glued.count >= 5 && LabelText.containsBytes(compactBytes, phrase.glued)
    }

    package func hasAny(_ phrases: PhraseList) -> Bool {
        !wordSet.isDisjoint(with: phrases.single) || phrases.multi.contains(where: has)
    }

    private static func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        var i = 0
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return true }
            }
            i += 1
        }
        return false
    }


    /// Tax names spelled with dots or spaces (`V.A.T.`, `G S T`) become one word, and the Dutch
    /// `BTW` read with an I for its T (`BIW`) is repaired.
    private static func joinTaxAbbreviations(_ words: [String]) -> [String] {
        guard words.contains(where: { $0.count == 1 || $0 == "BIW" }) else { return words }
        let spelled: Set<String> = ["VAT", "GST", "HST", "PST", "QST", "SST", "TVA", "IVA", "BTW"]
        var result: [String] = []
        var i = 0
        while i < words.count {
            if i + 2 < words.count, words[i ..< i + 3].allSatisfy({ $0.count == 1 }),
               spelled.contains(words[i] + words[i + 1] + words[i + 2]) {
                result.append(words[i] + words[i + 1] + words[i + 2])
                i += 3
                continue
            }
            result.append(words[i] == "BIW" ? "BTW" : words[i])
            i += 1
        }
        return result
    }

    /// The upper-cased runs of letters and digits of a text.
    private static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for c in text.uppercased() {
            if c.isLetter || c.isNumber {
                current.append(c)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `464TOTAL` → `464`, `TOTAL` (a time or number glued to the label).
    private static func splitLeadingDigits(_ word: String) -> [String] {
        guard let first = word.first, first.isNumber, word.count >= 5 else { return [word] }
        let digits = word.prefix(while: \.isNumber)
        let rest = word.dropFirst(digits.count)
        guard rest.count >= 4, rest.allSatisfy(\.isLetter) else { return [word] }
        return [String(digits), String(rest)]
    }

    /// `TAX1` → `TAX`, `1`; `GST6` → `GST`, `6`.
    private static func splitTrailingDigits(_ word: String) -> [String] {
        guard let last = word.last, last.isNumber, word.count >= 4 else { return [word] }
        let letters = word.prefix(while: \.isLetter)
        let rest = word.dropFirst(letters.count)
        guard letters.count >= 3, rest.allSatisfy(\.isNumber) else { return [word] }
        return [String(letters), String(rest)]
    }

    /// Repairs one word: letters for digits inside words (`T0TAL`), and one-letter slips in the
    /// vocabulary (`TOTAI` → `TOTAL`).
    private static func repair(_ word: String) -> String {
        guard word.count >= 4, word.contains(where: \.isLetter) else { return word }
        var w = word
        if w.filter(\.isNumber).count <= 1 {
            w = String(w.map { c -> Character in
                switch c {
                case "0": return "O"
                case "1": return "L"
                case "5": return "S"
                case "8": return "B"
                default: return c
                }
            })
        }
        if vocabularySet.contains(w) { return w }
        // "SUBTOTE", "SUBTOTA": SUBTOTAL with its last letters lost or misread ("Subtote!").
        if (6...9).contains(w.count), w.hasPrefix("SUBTOT"), w.allSatisfy({ $0.isASCII && $0.isLetter }) { return "SUBTOTAL" }
        if (4...9).contains(w.count), w.allSatisfy({ $0.isASCII && $0.isLetter }) {
            let bytes = Array(w.utf8)
            for (i, v) in vocabularyBytes.enumerated() where abs(v.count - bytes.count) <= 1 && v[0] == bytes[0] || v.last == bytes.last && v.count == bytes.count {
                if editDistance(v, bytes, limit: 1) <= 1 { return vocabulary[i] }
            }
            // "{OTAL", "UBTOTAL": the first letter lost to a speck or a bracket.
            if let i = vocabularyBytes.firstIndex(where: { $0.count == bytes.count + 1 && $0.dropFirst().elementsEqual(bytes) }) {
                return vocabulary[i]
            }
        }
        return w.count >= 5 && !w.contains(where: \.isNumber) ? w : word
    }

    private static let vocabularySet = Set(vocabulary)
    private static let vocabularyBytes = vocabulary.map { Array($0.utf8) }

    package static func editDistance(_ a: String, _ b: String) -> Int {
        editDistance(Array(a.utf8), Array(b.utf8), limit: Int.max)
    }

    /// Levenshtein distance over any elements (characters' scalars, words).
    package static func editDistance<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
        editDistance(a, b, limit: Int.max)
    }

    /// Levenshtein distance (over bytes, scalars or words); stops early once every path exceeds `limit`.
    package static func editDistance<T: Equatable>(_ a: [T], _ b: [T], limit: Int) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMin = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                rowMin = min(rowMin, current[j])
            }
            if rowMin > limit { return rowMin }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

/// A label phrase split once into its words.
package struct Phrase: Sendable {
    package let parts: [String]
    /// The words with no spaces, as bytes (for labels OCR printed without spaces).
    package let glued: [UInt8]

    package init(_ text: String) {
        parts = text.split(separator: " ").map(String.init)
        glued = Array(parts.joined().utf8)
    }
}

/// Phrases prepared for fast matching; array literals convert to it.
package struct PhraseList: Sendable, ExpressibleByArrayLiteral {
    package let single: Set<String>
    package let multi: [Phrase]

    package init(_ phrases: [String]) {
        single = Set(phrases.filter { !$0.utf8.contains(0x20) })
        multi = phrases.filter { $0.utf8.contains(0x20) }.map(Phrase.init)
    }

    package init(arrayLiteral elements: String...) {
        self.init(elements)
    }
}
